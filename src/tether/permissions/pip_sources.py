"""Code pip, uv and pipx build and install from local places: projects given as paths or
`file:`/`git+file:` URLs (`pip install /x`, `-e ../x`, `NAME @ file:///x`, `uv add ../x`,
`pipx install /x`, `--spec DIR`), the directories and indexes they take them from
(`--find-links`, `--index-url file:`), requirement and constraint files (`-r`, `-c`: read in
turn, relative to the file naming them: bash_judge_files), uv's project, env file and
interpreter (`--project`, `--env-file`, `--python /x/py`); options as optparse takes them
(any prefix of a long option: `--requirem=F`, `--find-lin DIR`). Where they write is
pip_writes.py."""

from __future__ import annotations

import re
import shlex
from urllib.parse import unquote

from tether.permissions.commands import SYSTEM_BIN_DIRS
from tether.permissions.entry_programs import entry_of
from tether.permissions.interpreter_scripts import interpreter_scripts
from tether.permissions.option_names import (
    OptionGrammar,
    long_option,
    option_values,
)
from tether.permissions.shell_words import PATH_STARTS, is_literal, program_name

PIP_FETCHES = frozenset({"install", "download", "wheel", "sync", "compile", "add", "inject"})
"""pip's, uv's (`uv add PATH`) and pipx's (`pipx install PATH`, `inject`) subcommands that
build and install what they name."""
PIP_PROGRAMS = frozenset({"pip", "pip3", "uv", "pipx"})
ADDERS = frozenset({"poetry", "pdm", "rye"})
"""Project managers whose `add` takes a requirement as pip does (`poetry add ../x`, `pdm add -e
/x`, `rye add x --path /x`, `git+file:`, `file:`): the same words, read by the same reader."""
_PIP_SOURCES = (
    *("-e", "--editable", "-f", "--find-links", "-i", "--index-url", "--extra-index-url"),
    *("--index", "--default-index", "--python", "-p", "--spec", "--path", "--git"),
)
"""pip's and uv's options naming where packages come from (a local directory, archive or index
given as a path or a `file:` URL: code built or installed from there) or the interpreter that
runs (a path); rye's `add --path DIR` and `--git URL`."""
_PIP_FILES = (
    *("-r", "--requirement", "-c", "--constraint", "--build-constraint", "--overrides"),
    *("--with-requirements", "--config-file"),
)
"""Files of requirements and constraints (which may name local projects: `-e /x/pkg`) and uv's
configuration (its indexes, its build settings): code chosen by a file."""
_PIP_VALUED = (
    *("-t", "--target", "--prefix", "--root", "--platform", "--python-version", "--abi"),
    *("--implementation", "--src", "--cache-dir", "--log", "--progress-bar", "--report"),
    *("--trusted-host", "--cert", "--client-cert", "--proxy", "--timeout", "--retries"),
    *("--exists-action", "--no-binary", "--only-binary", "--upgrade-strategy", "-C"),
    *("--config-settings", "--global-option", "--dest", "-d", "-w", "--wheel-dir"),
)
_PIP_OPTIONS = (*_PIP_VALUED, *_PIP_FILES, *_PIP_SOURCES)
PIP_FLAGS = frozenset(
    {"--pre", "--user", "--upgrade", "--no-deps", "--force-reinstall", "--ignore-installed"}
    | {"--no-index", "--no-cache-dir", "--quiet", "--verbose", "--isolated", "--compile"}
    | {"--require-hashes", "--no-build-isolation", "--use-pep517", "--no-clean", "--dry-run"}
    | {"--no-compile", "--no-warn-script-location", "--prefer-binary", "--check-build-dependencies"}
)
"""pip's flags spelled in full: each is itself, not a prefix of a valued option (`--pre` is
no `--prefix`)."""
_UV_PLACES = ("--project", "--directory", "--env-file")
"""uv's project directory (any subcommand: `uv run --project DIR` builds and syncs it) and the
env file `uv run` loads (env_files.py)."""
_VCS = re.compile(r"(git|hg|svn|bzr)\+", re.I)


def _uv_places(args: tuple[str, ...]) -> tuple[str, ...]:
    """uv's places (`_UV_PLACES`) and the interpreter it runs given as a path (`--python
    /x/py`; `3.12` is a version, `python3.12` or `/usr/bin/python3` an installed one)."""
    pythons = [
        v
        for v in option_values(args, ("--python", "-p"))
        if ("/" in v and v.rpartition("/")[0] not in SYSTEM_BIN_DIRS) or not is_literal(v)
    ]
    return (*option_values(args, _UV_PLACES), *pythons)


def pip_values(args: tuple[str, ...], options: tuple[str, ...]) -> list[str]:
    """The values of pip's `options` in `args`, taken as optparse takes them: any prefix of a
    long option (`--requirem=F`, `--find-lin DIR`; one pip finds ambiguous is taken too)."""
    return option_values(args, OptionGrammar(options, prefixes=True, known=PIP_FLAGS))


def pip_module(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """pip's words of an interpreter running it as a module (`python3 -m pip`, `-mpip`,
    `-Im pip`, `-m pip.__main__`: Python's command line as entry_programs reads it), or
    None."""
    if not argv or not is_literal(argv[0]) or not program_name(argv[0]).startswith("py"):
        return None
    entry = entry_of(argv)
    return entry[1] if entry is not None and entry[0] in ("pip", "pip3") else None


def pip_words(argv: tuple[str, ...]) -> tuple[str, ...]:
    """pip's words of `pip ...`, `uv pip ...` or `python3 -m pip ...`; none for others."""
    if not argv or not is_literal(argv[0]):
        return ()
    if program_name(argv[0]) in PIP_PROGRAMS:
        return optparse_words(argv[1:])
    if program_name(argv[0]) in ADDERS:
        words = optparse_words(argv[1:])
        return ("add", *_adder_operands(words[1:])) if words[:1] == ("add",) else ()
    words = pip_module(argv) or () if not interpreter_scripts(argv) else ()
    return optparse_words(words)


def _adder_operands(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words of `poetry add`, `pdm add` or `rye add` that may name a requirement: their
    option tables are not pip's (`pdm add -d` is a flag, `rye add --path DIR` a source), so
    every operand and option value is one (`-G dev`, `-d ../x`, `--path=../x`, `-e../x`); a
    package name or a group is no local source (`local_source`)."""
    found: list[str] = []
    for word in words:
        if not word.startswith("-") or word == "-":
            found.append(word)
        elif word.startswith("--"):
            found += [word.partition("=")[2]] if "=" in word else []
        elif len(word) > 2:
            found.append(word[2:])
    return tuple(found)


_SHORT_VALUED = frozenset("rceftdwCipPo")
"""Short options of pip and uv that take a value (in a cluster, the rest of it or the next
word: `-qr F`, `-qrF`)."""
GLOBAL_VALUED = (
    *("--log", "--log-file", "--proxy", "--retries", "--timeout", "--exists-action"),
    *("--trusted-host", "--cert", "--client-cert", "--cache-dir", "--python", "--use-feature"),
    *("--use-deprecated", "--keyring-provider", "--resume-retries", "--directory", "--project"),
    *("--color", "--config-file", "--allow-insecure-host", "--python-preference"),
)
"""pip's general options and uv's global ones that take a value, given before the subcommand
(`pip --log F install`, `uv --directory D pip install`)."""


def optparse_words(words: tuple[str, ...]) -> tuple[str, ...]:
    """pip's (or uv's) words as optparse reads them: the general options before the
    subcommand moved after it (`pip --cache-dir=X install`, `uv -q pip --verbose install`:
    pip reads them with the same grammar there), and each cluster of short options split
    (`-qr F`, `-qrF`, `-Ur`: `-q -r F`); a letter no table knows is read as a flag, so the
    options after it are still seen."""
    out: list[str] = []
    before: list[str] = []
    i, started = 0, False
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            out += words[i - 1 :]
            break
        if not word.startswith("-") or word == "-":
            out.append(word)
            if not started and word != "pip":
                started = True
                out += before
            continue
        split = _cluster(word) if word[1:2] != "-" else [word]
        takes = split[-1] in ("-" + c for c in _SHORT_VALUED) or (
            (found := long_option(split[-1], GLOBAL_VALUED + _PIP_OPTIONS, known=PIP_FLAGS))
            is not None
            and found[1] is None
        )
        value = [words[i]] if takes and i < len(words) else []
        i += len(value)
        (out if started else before).extend([*split, *value])
    return tuple(out)


def _cluster(word: str) -> list[str]:
    """`-qrF` as optparse reads it: `-q`, `-r`, `F`."""
    found: list[str] = []
    for at, char in enumerate(word[1:], 1):
        found.append("-" + char)
        if char in _SHORT_VALUED and at + 1 < len(word):
            return [*found, word[at + 1 :]]
    return found


def requirement_files(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The requirement and constraint files an install reads (`pip install -r FILE`), as
    written: the local projects their lines name are built too."""
    words = pip_words(argv)
    words = words[1:] if words[:1] in (("pip",), ("tool",)) else words
    if words[:1] == ("run",):  # `uv run --with-requirements F CMD`
        return tuple(pip_values(_before_command(words), ("--with-requirements",)))
    return tuple(pip_values(words, _PIP_FILES)) if words[:1] and words[0] in PIP_FETCHES else ()


def requirement_lines(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a requirements file's lines name: the local projects pip builds from them, as
    `_pip_paths` reads a command line, and the requirement files they read in turn (`-r
    more.txt`, relative to the file)."""
    words = requirement_words(text)
    files = pip_values(("install", *words), _PIP_FILES)
    sources = [p for p in _pip_paths(("install", *words)) if p not in files]
    return tuple(sources), tuple(files)


def requirement_words(text: str) -> list[str]:
    """A requirements file's words, its lines joined and comments dropped as pip does."""
    words: list[str] = []
    for line in _joined_lines(text):
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        words += _split(line) or ([line] if line else [])
    return words


def _joined_lines(text: str) -> list[str]:
    """A requirements file's lines as pip joins them: a line ending in `\\` (not a comment)
    runs on into the next with nothing between (`-r req\\` then `7.txt` is `-r req7.txt`),
    its backslashes stripped."""
    found: list[str] = []
    pending: list[str] = []
    for line in text.splitlines():
        comment = re.match(r"(^|\s+)#", line) is not None
        if line.endswith("\\") and not comment:
            pending.append(line.strip("\\"))
            continue
        found.append("".join([*pending, " " + line if comment and pending else line]))
        pending = []
    if pending:
        found.append("".join(pending))
    return found


def _pip_paths(args: tuple[str, ...]) -> tuple[str, ...]:
    """Local projects pip builds and installs (`pip install /tmp/x`, `-e ../x`, `file:`,
    `git+file:`, `NAME @ file:///x`), the directories and indexes it takes them from
    (`--find-links=DIR`, `--index-url file:///x`), and requirement files (`-r FILE`): their
    build backends and set-up scripts run."""
    words = args[1:] if args[:1] in (("pip",), ("tool",)) else args  # `uv pip install`
    if words[:1] == ("run",):  # `uv run --with-requirements F`, `uv tool run`: their files
        return tuple(pip_values(_before_command(words), ("--with-requirements",)))
    if not words or words[0] not in PIP_FETCHES:
        return ()
    found: list[str] = [*pip_values(words, _PIP_FILES)]
    found += [p for v in pip_values(words, _PIP_SOURCES) if (p := local_source(v)) is not None]
    found += [
        source
        for arg, named in requirement_operands(words)
        if (source := local_source(arg, named=named)) is not None
    ]
    return tuple(found)


def requirement_operands(words: tuple[str, ...]) -> list[tuple[str, bool]]:
    """The operands of a pip subcommand's `words` (option values skipped), each with whether
    it follows a lone `@` (the URL of `NAME @ URL`)."""
    found: list[tuple[str, bool]] = []
    skip = False
    named = False
    for arg in words[1:]:
        if skip:
            skip = False
            continue
        valued = long_option(arg, _PIP_OPTIONS, known=PIP_FLAGS) if arg[:2] == "--" else None
        if arg in _PIP_OPTIONS or (valued is not None and valued[1] is None):
            skip = True
            continue
        if arg.startswith("-"):
            continue
        found.append((arg, named))
        named = arg == "@"
    return found


def local_projects(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The local projects an install names on its command line (`pip install ./p`, `-e p`,
    `uv tool install p`), as written: their own dependencies are built too (pip_projects)."""
    words = pip_words(argv)
    files = set(requirement_files(argv))
    found = [p for p in _pip_paths(words) if p not in files and "://" not in p]
    # `-e DIR`: a bare name is a directory too
    found += [v for v in pip_values(words, ("-e", "--editable")) if ":" not in v]
    return tuple(dict.fromkeys(found))


def uv_project_dirs(argv: tuple[str, ...]) -> tuple[str, ...]:
    """Where uv finds its project and configuration (`--project`, `--directory`, or where
    it runs: `.`), for any uv command."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) != "uv":
        return ()
    words = optparse_words(argv[1:])
    if words[:1] not in _UV_RESOLVES or (words[:1] == ("pip",) and words[1:2] not in _UV_PIP):
        return ()
    return tuple(option_values(_before_command(argv[1:]), _UV_PLACES[:2])) or (".",)


_UV_RESOLVES = {(c,) for c in ("sync", "lock", "run", "add", "remove", "export", "tree", "pip")}
_UV_PIP = {(c,) for c in PIP_FETCHES}
"""uv's commands that resolve the project's dependencies with its settings (`uv pip`: those
that install)."""


def _before_command(words: tuple[str, ...]) -> tuple[str, ...]:
    """`uv run`'s own words, before the command it runs."""
    for i, word in enumerate(words[1:], 1):
        if word == "--" or (not word.startswith("-") and not words[i - 1].startswith("-")):
            return words[:i]
    return words


def local_source(value: str, *, named: bool = False) -> str | None:
    """The local path a requirement or package source names (`./x`, `/x`, `file:///x`,
    `git+file:///x`, `NAME @ file:///x`, `NAME@/x`), as written; one known only as it runs is
    any; None for a package name or a remote URL."""
    if (
        not named
        and "@" in value
        and not value.startswith(PATH_STARTS)
        and ":" not in (value.partition("@")[0])
    ):
        value = value.partition("@")[2].strip()  # `NAME @ URL`, `NAME[extra]@URL`
    value = _VCS.sub("", value, count=1) if _VCS.match(value) else value
    if value[:5].lower() == "file:":
        # pip's url_to_path: `file://HOST/PATH` (`localhost`, any host) is /PATH, its
        # percent-escapes decoded; `file:/PATH` and `file:///PATH` the same.
        rest = value[5:]
        if rest.startswith("//"):
            rest = "/" + rest[2:].partition("/")[2]
        return unquote(rest) or "/"
    if "://" in value:
        return None
    local = value.startswith(PATH_STARTS) or "/" in value
    return value if local or not is_literal(value) else None


def fetched_code(argv: tuple[str, ...]) -> str | None:
    """Why `argv` runs code fetched from a package index under an interpreter's name
    (`python3 -m pip install X`: the packages' build backends and setup scripts run), or None.
    An allow rule for the interpreter does not cover it; one naming pip does (`Bash(pip
    install *)`, `Bash(python3 -m pip *)`)."""
    rest = pip_module(argv)
    if rest is None or not any(word in PIP_FETCHES for word in rest):
        return None
    return (
        f"`{program_name(argv[0])} -m pip` installs packages whose build and set-up code "
        "runs unseen; only a rule naming pip allows that"
    )


def pip_loads(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The local places `argv` (pip, uv, pipx, `python3 -m pip`) builds or runs code from."""
    uv = _uv_places(argv[1:]) if program_name(argv[0]) == "uv" else ()
    words = pip_words(argv)
    return (*uv, *_pip_paths(words), *_config_places(words))


def _config_places(words: tuple[str, ...]) -> list[str]:
    """The places the build backend is handed by `-C`/`--config-settings KEY=VALUE` (uv's
    `--config-setting`) of an install, download or wheel build: a value given as a path (`-C
    builddir=/x`, `--config-settings=editable-config=../x.toml`) or known only as pip runs is
    read by the backend's code, which may load or run what it finds there."""
    at = 1 if words[:1] in (("pip",), ("tool",)) else 0
    if words[at : at + 1] == () or words[at] not in PIP_FETCHES:
        return []
    found: list[str] = []
    for value in pip_values(words[at:], ("-C", "--config-settings")):
        place = value.rpartition("=")[2]  # `setup-args=-Dx=/p`: the last value
        if place.startswith(PATH_STARTS) or "/" in place or not is_literal(place):
            found.append(place)
    return found


def _split(text: str) -> list[str] | None:
    try:
        return shlex.split(text)
    except ValueError:
        return None
