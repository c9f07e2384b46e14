"""conda's environment files (`conda env create -f environment.yml`, `env update`, `create
--file env.yml`; mamba's and micromamba's alike): their `pip:` section is a requirements file
conda hands pip, run from the environment file's directory, so its lines (`-r FILE`, `-e
PATH`, a local project) are judged as pip's requirement lines are (bash_judge_projects)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import yaml

from tether.permissions.file_urls import local_url_path
from tether.permissions.option_names import OptionGrammar, option_values, plain_operands
from tether.permissions.shell_words import PATH_STARTS, is_literal, program_name, tilde_expanded

CONDA_PROGRAMS = frozenset({"conda", "mamba", "micromamba"})
_FILES = OptionGrammar(("-f", "--file"), prefixes=True)
"""conda's parser is argparse's: any unambiguous prefix is the option (`--fi`)."""
_ENV_VERBS = frozenset({"create", "update"})
_DEFAULT = "environment.yml"
"""The file `conda env create` and `env update` read without `-f`."""


def environment_files(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The environment files a conda command installs from, as written: `-f`/`--file`'s
    values, or `environment.yml` for `env create`/`env update` without one."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in CONDA_PROGRAMS:
        return ()
    words = plain_operands(argv[1:], CONDA_VALUED)
    files = tuple(option_values(argv[1:], _FILES))
    if files:
        return files
    if words[:1] == ["env"] and words[1:2] and words[1] in _ENV_VERBS:
        return tuple(words[2:]) or (_DEFAULT,)  # `env create FILE` (newer conda)
    return ()


_CHANNELS = OptionGrammar(("-c", "--channel"), prefixes=True)
CONDA_VALUED = frozenset(
    {"-n", "--name", "-p", "--prefix", "-c", "--channel", "-f", "--file", "--cwd", "--solver"}
    | {"--repodata-fn", "--subdir", "--platform", "--output-folder", "--croot", "-m"}
    | {"--variant-config-files", "-e", "--exclusive-config-file", "--python", "--numpy"}
)
_INSTALLS = frozenset({"install", "create", "update", "upgrade"})
_BUILDS = frozenset({"build", "develop", "mambabuild"})
"""Commands whose operands are directories whose code they run (a recipe's build script, a
package put on the path)."""
_PACKAGE_FILE = (".conda", ".tar.bz2")


def conda_sources(args: Sequence[str]) -> tuple[str, ...]:
    """The local places, as written, that conda (mamba, micromamba) takes packages and code
    from: a channel on this machine (`-c DIR`, `-c file:///x`), a package file or path
    installed (`install /x/p.conda`), a recipe built or a directory developed (`build DIR`),
    an environment file given as an operand (`env create /x/environment.yml`). Outside the
    workspace they are code no rule has seen (outside_code)."""
    found = [c for v in option_values(args, _CHANNELS) if (c := local_channel(v)) is not None]
    words = plain_operands(args, CONDA_VALUED)
    command = words[:1]
    if words[:1] == ["env"] and words[1:2] and words[1] in _ENV_VERBS:
        found += words[2:]
    elif command and command[0] in _BUILDS:
        found += words[1:]
    elif command and command[0] in _SPECIFIED:
        found += [p for w in words[1:] if (p := _spec_source(w)) is not None]
    return tuple(found)


_SPECIFIED = _INSTALLS | {"search"}
"""Commands whose operands are package specs, each of which may name its own channel."""
_BRACKET_CHANNEL = re.compile(r"[\[,]\s*['\"]?(?:channel|url)['\"]?\s*=\s*['\"]?([^,\]'\"]+)", re.I)
"""A spec's channel or package URL in brackets (`numpy[channel=/x/ch]`,
`numpy[url=file:///x/p.tar.bz2]`), as conda's MatchSpec reads them: both keys name where
the package comes from."""


def _spec_source(word: str) -> str | None:
    """The local place a package spec takes its package from, as written: the channel of
    `CHANNEL::NAME` (`file:///x/ch::numpy`, `/x/ch::numpy`, `$C::numpy`) or of `NAME[channel=
    CHANNEL]`, a package file or path installed, a spec starting with what is known only as it
    runs; None for a name or a remote channel."""
    channel, named, _ = word.rpartition("::")
    if named:
        return local_channel(channel)
    if not is_literal(word[:1]):
        return word  # `$SPEC`, `~::pkg` (bash leaves it as written): its channel may be anything
    brackets = [local_channel(found) for found in _BRACKET_CHANNEL.findall(word)]
    if brackets:
        return next((place for place in brackets if place is not None), None)
    return local_channel(word) or word if _package_path(word) else None


_PREFIX = OptionGrammar(("-p", "--prefix"), prefixes=True)
_CHANGES = frozenset({*_INSTALLS, "remove", "uninstall"})


def prefix_writes(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The environment a conda (mamba, micromamba) command makes or changes by path, as written
    (`create -p DIR`, `install --prefix DIR`, `env create -p DIR`): written, the packages'
    link scripts run there."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in CONDA_PROGRAMS:
        return ()
    words = plain_operands(argv[1:], CONDA_VALUED)
    command = words[1:2] if words[:1] == ["env"] else words[:1]
    if not command or command[0] not in _CHANGES:
        return ()
    return tuple(option_values(argv[1:], _PREFIX))


def local_channel(channel: str) -> str | None:
    """The directory a channel on this machine is (`/x/chan`, `./chan`, `file:///x`); None for
    a named or remote one (`conda-forge`, `https://...`)."""
    scheme = channel[:7].lower()
    if scheme.startswith("file:"):
        # Read as file_urls reads every `file:` URL (`file://localhost/x`, `%2e%2e`); conda
        # expands a `~` in a path itself (`file://~/chan`).
        rest = channel[7:] if scheme == "file://" else channel[5:]
        if rest.startswith("~"):
            return tilde_expanded(local_url_path("file:" + rest))
        return local_url_path(channel)
    if channel.startswith(PATH_STARTS) or not is_literal(channel):
        return tilde_expanded(channel)
    return None


def _package_path(word: str) -> bool:
    if word[:5].lower() == "file:" or word.startswith(PATH_STARTS):
        return True
    return word.endswith(_PACKAGE_FILE)


def _environment(text: str) -> dict[object, object] | None:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None  # pyright: ignore[reportUnknownVariableType]


def environment_channels(text: str) -> tuple[str, ...]:
    """The channels on this machine an environment file's `channels:` list names (`file:///x`,
    `/x/chan`): conda installs packages, and their scripts, from there. A file that is no
    environment file is a list of specs (`install --file reqs.txt`), a line each, or an
    explicit list of package URLs (`@EXPLICIT`): the local places each takes its package
    from (`/x/ch::pkg`, `pkg[channel=/x/ch]`, `file:///x/p.conda`)."""
    data = _environment(text)
    if data is None:
        return _spec_file_sources(text)
    channels = data.get("channels")
    if not isinstance(channels, list):
        return ()
    named = [local_channel(str(c)) for c in channels]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return tuple(c for c in named if c is not None)


def pip_lines(text: str) -> str | None:
    """The requirements text an environment file's `pip:` section gives pip (its entries, a
    line each); None when the text is not an environment file (a list of conda specs)."""
    data = _environment(text)
    if data is None:
        return None
    dependencies = data.get("dependencies")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(dependencies, list):
        return None
    lines: list[str] = []
    for item in dependencies:  # pyright: ignore[reportUnknownVariableType]
        if isinstance(item, dict) and isinstance(section := item.get("pip"), list):  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            lines += [str(entry) for entry in section]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return "\n".join(lines)


def _spec_file_sources(text: str) -> tuple[str, ...]:
    """The local places a spec file's lines take packages from (`#` starts a comment)."""
    found: list[str] = []
    for line in text.splitlines():
        spec = line.partition("#")[0].strip()
        if spec and not spec.startswith("@"):
            found += [p for word in spec.split() if (p := _spec_source(word)) is not None]
    return tuple(found)


def listed_specs(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What an environment or spec file takes packages by: an environment file's channels
    and the specs of its `dependencies:` (not pip's section), or no channels and a spec
    file's words (`#` starts a comment; an `@EXPLICIT` list's lines are package URLs)."""
    data = _environment(text)
    if data is None:
        lines = (line.partition("#")[0].strip() for line in text.splitlines())
        return (), tuple(w for line in lines if not line.startswith("@") for w in line.split())
    channels, specs = data.get("channels"), data.get("dependencies")
    return _strings(channels), _strings(specs)


def _strings(items: object) -> tuple[str, ...]:
    if not isinstance(items, list):
        return ()
    return tuple(str(i) for i in items if isinstance(i, str | int | float))  # pyright: ignore[reportUnknownVariableType]
