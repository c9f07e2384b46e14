"""The commands a build or package runner runs from its project file, as text to judge as
bash: `make [TARGET...]` reads ./GNUmakefile, ./makefile or ./Makefile (or the `-f` ones,
in the directory `-C` names) as makefile_reader.py does; `npm run X`, `npm install`, `yarn
X`, `pnpm X`, `bun X` run scripts of ./package.json (package_scripts.py, with the project's
config files, package_configs.py); `node --run X` runs `scripts.X`; `deno task X` runs the
task X of ./deno.json, ./deno.jsonc or ./package.json; pdm, poe, hatch and tox their
scripts, tasks and commands (python_runners.py). What the runner's words leave unknown
is `ProjectCode.unread`: code not read."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Final

from tether.permissions.make_options import make_places, run_directory
from tether.permissions.makefile_reader import read_makefile
from tether.permissions.makefile_run import DEFAULT_INCLUDE_DIRS, MakeRun
from tether.permissions.option_names import long_option
from tether.permissions.package_scripts import CONFIGS, RUNNERS, package_run
from tether.permissions.python_runners import (
    ELSEWHERE,
    PYTHON_RUNNERS,
    python_runner_text,
    runner_names,
)
from tether.permissions.runner_files import RUNNER_FILES, runner_text
from tether.permissions.script_arguments import unknown_words, with_words
from tether.permissions.shell_words import is_literal, program_name
from tether.slotted import Slotted

_MAKE = frozenset({"make", "gmake", "bmake"})
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_BMAKEFILES = ("makefile", "Makefile")
_MAKE_VALUED = frozenset("CfIoWEjlO")
_MAKE_LONG_VALUED = (
    *("--directory", "--file", "--makefile", "--include-dir", "--old-file", "--assume-old"),
    *("--what-if", "--new-file", "--assume-new", "--eval", "--jobserver-style"),
)
_DRY = ("--just-print", "--dry-run", "--recon")
_NO_RULES = ("--no-builtin-rules",)
_ENV_OVERRIDES = ("--environment-overrides",)
_MAKE_ENVIRONMENT = frozenset({"MAKEFLAGS", "GNUMAKEFLAGS", "MFLAGS", "MAKEFILES"})


class ProjectCode(Slotted):
    """The project files a runner reads from its directory (`directory` from where it
    starts, None: there; the first that exists, or each with `every`), the targets or
    script names it runs (() for make's default target), how make runs, the config files
    beside them, and why some of what it runs is not read."""

    __slots__ = (
        *("configs", "directory", "every", "files", "kind", "make", "names", "packages"),
        *("passed", "unread"),
    )
    kind: Final[str]
    files: Final[tuple[str, ...]]
    names: Final[tuple[str, ...]]
    directory: Final[str | None]
    every: Final[bool]
    make: Final[MakeRun | None]
    configs: Final[tuple[str, ...]]
    passed: Final[tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]]
    unread: Final[tuple[str, ...]]
    packages: Final[tuple[str, ...]]
    """The workspace's packages it runs in, by their selectors (package_workspaces.py)."""

    def __init__(
        self,
        kind: str,
        files: tuple[str, ...],
        names: tuple[str, ...],
        *,
        directory: str | None = None,
        every: bool = False,
        make: MakeRun | None = None,
        configs: tuple[str, ...] = (),
        passed: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (),
        unread: tuple[str, ...] = (),
        packages: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self.files = files
        self.names = names
        self.directory = directory
        self.every = every
        self.make = make
        self.configs = configs
        self.passed = passed
        self.unread = unread
        self.packages = packages


def project_code(
    argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...] = ()
) -> ProjectCode | None:
    """What `argv` (with `assignments` in its environment) runs from a project file; None
    for other commands, and for a makefile from the input (judged as code from there)."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    args = argv[1:]
    if name in _MAKE:
        return _make_code(name, args, assignments)
    if name in ("node", "nodejs"):
        for i, arg in enumerate(args):
            if arg == "--run" and i + 1 < len(args):
                return ProjectCode("node", ("package.json",), (args[i + 1],))
            if arg.startswith("--run="):
                return ProjectCode("node", ("package.json",), (arg.partition("=")[2],))
        return None
    if name == "corepack" and args and args[0] in RUNNERS:  # `corepack npm ...`
        return project_code(args, assignments)
    if name == "deno":
        return _deno_code(args)
    if name in RUNNER_FILES:
        return _runner_code(name, args)
    if name in PYTHON_RUNNERS:
        names = runner_names(name, args)
        if names is None:
            return None
        unread = (f"{name} reads a project its options name",) if ELSEWHERE in names else ()
        return ProjectCode(name, PYTHON_RUNNERS[name], names, every=True, unread=unread)
    if name not in RUNNERS:
        return None
    run = package_run(name, args, assignments)
    if run is None:
        return None
    return ProjectCode(
        "package",
        ("package.json",),
        tuple(run.scripts),
        directory=run.directory,
        configs=CONFIGS[name],
        passed=tuple(run.passed.items()),
        unread=tuple(run.unread),
        packages=tuple(dict.fromkeys(run.packages)),
    )


def project_text(
    code: ProjectCode,
    texts: list[str],
    read: Callable[[str], str | None],
    exists: Callable[[str], bool],
) -> tuple[str | None, tuple[str, ...]]:
    """The commands `code` runs from the project files' `texts` (None: none; no such
    target or script, the runner fails) and why some are not read; `read` and `exists` see
    files from the runner's directory (make's includes)."""
    if code.make is not None:
        reading = read_makefile("\n".join(texts), code.make, read, exists)
        return reading.text, reading.unread
    if code.kind in RUNNER_FILES:
        return runner_text(code.kind, "\n".join(texts), code.names)
    if code.kind in PYTHON_RUNNERS:
        return python_runner_text(code.kind, texts, code.names)
    tables = ("tasks", "scripts") if code.kind == "deno" else ("scripts",)
    scripts: dict[str, object] = {}
    for text in (t for t in texts if t.strip()):
        try:
            data = json.loads(text)
        except ValueError:
            return None, ("tether cannot read its project file",)
        for table in tables:
            found = data.get(table) if isinstance(data, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if isinstance(found, dict):
                scripts = {**found, **scripts}  # pyright: ignore[reportUnknownArgumentType]
    wanted = list(code.names)
    passed = dict(code.passed)
    unread: list[str] = []
    found_texts: list[str] = []
    for name in wanted:
        if len(found_texts) >= 64:
            break
        script = scripts.get(name)
        if isinstance(script, dict):  # a deno task: {"command": ..., "dependencies": [...]}
            depends = script.get("dependencies") or ()  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            wanted += [d for d in depends if isinstance(d, str) and d not in wanted]  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            script = script.get("command")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(script, str):
            readings = passed.get(name, ((),))
            if any(unknown_words(words) for words in readings):
                unread.append(f"it passes the script {name} words known only as it runs")
                readings = ((),)
            # Each reading in a subshell of its own, as each is a run of its own.
            texts_run = [with_words(script, words) for words in dict.fromkeys(readings)]
            found_texts += texts_run if len(texts_run) == 1 else [f"(\n{t}\n)" for t in texts_run]
    return "\n".join(found_texts) or None, tuple(unread)


def _make_code(
    name: str, args: tuple[str, ...], assignments: tuple[tuple[str, str], ...]
) -> ProjectCode | None:
    """make's makefiles, directory, goals and variables; None for a makefile from the
    input or one not known before it runs (interpreter_code judges those)."""
    found = _make_words(args)
    if found is None:
        return None
    targets, assigned, flags = found
    places = make_places(args)
    files = tuple(value for letter, value in places if letter == "f")
    if any(not is_literal(f) or f in ("-", "") for f in files):
        return None
    unread = [f"{n} in make's environment" for n, _ in assignments if n in _MAKE_ENVIRONMENT]
    if any(letter == "C" and not is_literal(value) for letter, value in places):
        unread.append("make runs in a directory known only as it runs")
    directory = run_directory([value for letter, value in places if letter == "C"])
    default = _BMAKEFILES if name == "bmake" else MAKEFILES
    include_dirs: list[str] = []
    for letter, value in places:
        if letter != "I":
            continue
        if not is_literal(value):
            unread.append("make looks for included makefiles in a directory known only as it runs")
        elif value == "-":  # GNU make: the directories so far, its own too, are dropped
            include_dirs = []
        else:
            include_dirs.append(value)
    searched = () if "-" in (v for letter, v in places if letter == "I") else DEFAULT_INCLUDE_DIRS
    run = MakeRun(
        targets,
        assigned,
        assignments,
        flags,
        include_dirs=(*include_dirs, *searched),
        makefiles=files or default,
    )
    return ProjectCode(
        "make",
        files or default,
        targets,
        directory=directory,
        every=bool(files),
        make=run,
        unread=tuple(unread),
    )


def _make_words(
    args: tuple[str, ...],
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...], frozenset[str]] | None:
    """make's goals, its command-line variables and its flags that change what runs (`n`,
    `r`, `e`)."""
    targets: list[str] = []
    assigned: list[tuple[str, str]] = []
    flags: set[str] = set()
    skip = False
    ended = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--" and not ended:
            ended = True
        elif arg.startswith("--") and not ended:
            option = arg.partition("=")[0]
            found = long_option(option, _MAKE_LONG_VALUED)
            skip = found is not None and "=" not in arg
            for letter, names in (("n", _DRY), ("r", _NO_RULES), ("e", _ENV_OVERRIDES)):
                if found is None and long_option(option, names) is not None:
                    flags.add(letter)
        elif arg.startswith("-") and len(arg) > 1 and not ended:
            for j, letter in enumerate(arg[1:], start=2):
                if letter in _MAKE_VALUED:
                    skip = j == len(arg) and letter not in "jlO"
                    break
                flags.add(letter)
        elif "=" in arg:
            variable, _, value = arg.partition("=")
            assigned.append((variable.rstrip(":+?!"), value))
        else:
            targets.append(arg)
    return tuple(targets), tuple(assigned), frozenset(flags & set("nre"))


def _deno_code(args: tuple[str, ...]) -> ProjectCode | None:
    """`deno task [OPTIONS] NAME`: the task from deno.json(c), or package.json's script."""
    if not args or args[0] != "task":
        return None
    unread: list[str] = []
    directory: str | None = None
    files = ("deno.json", "deno.jsonc", "package.json")
    names: list[str] = []
    words = args[1:]
    i = 0
    while i < len(words):
        word = words[i]
        option, eq, value = word.partition("=")
        if option in ("--cwd", "-c", "--config") and not eq:
            value = words[i + 1] if i + 1 < len(words) else ""
            i += 1
        if not is_literal(word) or (
            option in ("--cwd", "-c", "--config") and not is_literal(value)
        ):
            unread.append("deno task's words are known only as it runs")
        elif option == "--cwd":
            directory = value
        elif option in ("-c", "--config"):
            files = (value,)
        elif option in ("-r", "--recursive", "--filter", "-f", "--eval"):
            unread.append(f"deno task {option} runs tasks tether does not read")
        elif not word.startswith("-"):
            names.append(word)
            break
        i += 1
    if not names and not unread:
        return None
    return ProjectCode(
        "deno", files, tuple(names), directory=directory, every=True, unread=tuple(unread)
    )


_RUNNER_OPTIONS = {
    # (file, directory, valued options, options that run nothing from the file)
    "ninja": (("-f",), ("-C",), ("-j", "-k", "-l", "-d", "-w"), ("-t", "--version", "-h")),
    "just": (
        ("-f", "--justfile"),
        ("-d", "--working-directory"),
        ("--set", "--shell", "--shell-arg", "--dotenv-path", "--dotenv-filename", "--color"),
        ("-l", "--list", "--summary", "--version", "-V", "-h", "--help", "--show", "-s"),
    ),
    "task": (
        ("-t", "--taskfile"),
        ("-d", "--dir"),
        ("-o", "--output", "-c", "--color", "-I", "--interval", "-C", "--concurrency"),
        ("-l", "--list", "-a", "--list-all", "--version", "-h", "--help", "--init", "-i"),
    ),
    "rake": (
        ("-f", "--rakefile"),
        ("-C", "--directory"),
        ("-I", "-r", "-R"),
        ("-V", "--version", "-h", "--help"),
    ),
    # nox, invoke, scons and doit import their file even to list or describe its tasks.
    "nox": (
        ("-f", "--noxfile"),
        (),
        (
            *("-s", "-e", "--session", "--sessions", "-p", "--python", "-k", "--keywords"),
            *("-t", "--tags", "--envdir", "--extra-pythons", "--extra-python", "-P"),
            *("--force-python", "-db", "--default-venv-backend", "-fb", "--force-venv-backend"),
            *("--reuse-venv", "--report"),
        ),
        ("--version",),
    ),
    **dict.fromkeys(
        ("invoke", "inv"),
        (
            ("-c", "--collection"),
            ("-r", "--search-root"),
            ("-f", "--config", "-D", "--list-depth", "-F", "--list-format", "-T"),
            ("-V", "--version", "--print-completion-script"),
        ),
    ),
    "scons": (
        ("-f", "--file", "--makefile", "--sconstruct"),
        ("-C", "--directory"),
        ("-j", "--jobs", "-I", "--include-dir", "--site-dir", "--cache-dir"),
        ("-v", "--version", "-H", "--help-options"),
    ),
    "doit": (
        ("-f", "--file"),
        ("-d", "--dir"),
        ("--db-file", "--backend", "-n", "--process", "-P", "--parallel-type", "-o"),
        ("--version",),
    ),
}
_COLLECTIONS = frozenset({"invoke", "inv"})
"""invoke's `-c NAME` names a module (`NAME.py`, or a package), not a file."""


def _runner_code(name: str, args: tuple[str, ...]) -> ProjectCode | None:
    """ninja, just, task, rake and the Python task runners: their file (first found, or the
    one named), directory and goals; None for an option that runs nothing from the file
    (`ninja --version`)."""
    file_options, dir_options, valued, inert = _RUNNER_OPTIONS[name]
    files = RUNNER_FILES[name]
    directory: str | None = None
    names: list[str] = []
    unread: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        option, eq, value = word.partition("=")
        if word == "--":
            break
        if option in inert or word in inert:
            return None
        takes = option in (*file_options, *dir_options, *valued)
        if takes and not eq:
            value = args[i + 1] if i + 1 < len(args) else ""
            i += 1
        if not is_literal(word) or (takes and not is_literal(value)):
            unread.append(f"{name}'s words are known only as it runs")
        elif option in file_options and name in _COLLECTIONS:
            module = value.replace(".", "/")
            files = (f"{module}.py", f"{module}/__init__.py")
        elif option in file_options:
            files = (value,)
        elif option in dir_options:
            directory = value
        elif not word.startswith("-") and "=" not in word:
            names.append(word)
        i += 1
    if name == "just":
        names = names[:1]  # the rest are the recipe's arguments
    return ProjectCode(name, files, tuple(names), directory=directory, unread=tuple(unread))
