"""The code files an interpreter runs, from one table per interpreter: which options take
inline code (judged by interpreter_code.py), which take a module to run, which take a value
that is no code, and where the script is (`python3 /tmp/x.py`, `node x.js`, `perl x.pl`,
`bash x.sh`, `source x`). A module that runs a script or loads tests from paths is read with
its own table (`python3 -m trace/cProfile/profile/pdb/runpy/doctest/unittest/coverage`).

bash_policy judges each path as code a program imports (`_loads`): a file of the workspace
is the user's (an allow rule for the interpreter runs it, as in Claude Code); a path outside
the workspace, or one chosen when the command runs (`python3 $X`), is code not seen, asked
whatever rule allows the interpreter."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from tether.permissions.node_options import NODE_VALUED_OPTIONS
from tether.permissions.node_runners import NODE_RUNNERS
from tether.permissions.run_as_main import module_that_runs
from tether.permissions.runtime_files import NODE_VALUED
from tether.permissions.shell_words import program_name
from tether.permissions.shells import script_file


@dataclass(frozen=True)
class Interpreter:
    code: frozenset[str]
    """Options whose value is inline code: no script runs (interpreter_code.py)."""
    module: frozenset[str] = frozenset()
    """Options whose value is a module run as the program; the words after it are its."""
    valued: frozenset[str] = frozenset()
    """Options taking a separate value that is no code file."""
    bundles: bool = False
    """Short options bundle in one word (`-Sc`, `-uEm`): the first code or module letter
    ends the bundle, its value the rest of the word or the next word."""
    command: str | None = None
    """A first word that selects running a script (`deno run X`, `bun run X`)."""


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


PYTHON_VALUED = _s("-W", "-X", "--check-hash-based-pycs")
"""Python's options that take a separate value (`--check-hash-based-pycs always`): every
reader of Python's command line skips the value, never takes it for the script."""
_PYTHON = Interpreter(code=_s("-c"), module=_s("-m"), valued=PYTHON_VALUED, bundles=True)
_NODE = Interpreter(
    code=_s("-e", "-p", "--eval", "--print"),
    bundles=True,
    valued=_s("-r", "--require", "--import", "--loader", "--experimental-loader", "-C")
    | _s("--conditions", "--input-type", "--title", "--env-file", "--inspect-port")
    | _s("--experimental-config-file", "--env-file-if-exists", "--openssl-config")
    | NODE_VALUED
    | NODE_VALUED_OPTIONS,
)
INTERPRETERS: Mapping[str, Interpreter] = {
    "python": _PYTHON,
    "pypy": _PYTHON,
    "node": _NODE,
    **dict.fromkeys(NODE_RUNNERS, _NODE),
    "perl": Interpreter(code=_s("-e", "-E"), valued=_s("-I", "-M", "-m"), bundles=True),
    "ruby": Interpreter(
        code=_s("-e"), valued=_s("-I", "-r", "--require", "-C", "-E"), bundles=True
    ),
    "php": Interpreter(code=_s("-r", "-R", "-B", "-E"), valued=_s("-c", "-d", "-z")),
    "Rscript": Interpreter(code=_s("-e")),
    "lua": Interpreter(code=_s("-e"), valued=_s("-l")),
    "deno": Interpreter(code=_s("eval"), command="run", valued=_s("--config", "-c")),
    "bun": Interpreter(
        code=_s("-e", "--eval", "-p", "--print"), command="run", valued=_s("-r", "--preload")
    ),
}
_FAMILY = re.compile(r"(python|pypy|node|perl|ruby|php|lua)(js|[0-9][0-9.]*)?")
_NAMES = {"luajit": "lua"}


@dataclass(frozen=True)
class Module:
    valued: frozenset[str] = frozenset()
    """Its options taking a value that is no code file."""
    loads: frozenset[str] = frozenset()
    """Its options whose value is a file or directory of code it runs or imports."""
    names_module: frozenset[str] = frozenset()
    """Flags after which its positional is a module name, not a path (`-m`, `--module`)."""
    scripts: str = "first"
    """Which positionals are code: `first` (a script, the rest its arguments), `all`, `paths`
    (those that look like paths: `unittest tests/test_x.py`), `discover` (unittest's)."""


PYTHON_MODULES: Mapping[str, Module] = {
    "trace": Module(
        valued=_s("-C", "--coverdir", "--ignore-module", "--ignore-dir", "-f", "--file"),
        names_module=_s("--module"),
    ),
    "cProfile": Module(valued=_s("-o", "-s"), names_module=_s("-m")),
    "profile": Module(valued=_s("-o", "-s"), names_module=_s("-m")),
    "pdb": Module(valued=_s("-c", "--command"), names_module=_s("-m")),
    "ipdb": Module(valued=_s("-c", "--command"), names_module=_s("-m")),
    "runpy": Module(scripts="paths"),
    "doctest": Module(valued=_s("-o", "--option"), scripts="all"),
    "unittest": Module(
        valued=_s("-k", "-p", "--pattern"),
        loads=_s("-s", "--start-directory", "-t", "--top-level-directory"),
        scripts="discover",
    ),
    "coverage": Module(
        valued=_s("--rcfile", "--source", "--include", "--omit", "--data-file", "--context")
        | _s("--concurrency", "-p", "--parallel-mode"),
        names_module=_s("-m", "--module"),
    ),
    # Unpickling a file runs what it names (`__reduce__`): each file is code.
    "pickle": Module(scripts="all"),
    # pydoc imports what it documents; a name with a `/` (or `-w` of one) is imported as a
    # file.
    "pydoc": Module(valued=_s("-k", "-p", "-n"), scripts="paths"),
    # inspect imports the module it shows (`inspect MOD[:QUALNAME]`).
    "inspect": Module(scripts="paths"),
}
"""Modules that run a script or import code from the paths they are given."""


@dataclass(frozen=True)
class ModuleCall:
    words: tuple[str, ...]
    """The module's name, then its arguments."""


def interpreter_scripts(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The code files `argv` runs, as written (empty for inline code or the input)."""
    if not argv:
        return ()
    name = program_name(argv[0])
    shell_script = script_file(argv)
    if shell_script is not None:
        return (shell_script,)
    if name == "coverage":
        return _coverage(argv[1:])
    found = _walk(argv)
    return _module(found.words) if isinstance(found, ModuleCall) else found


def python_inspects(args: tuple[str, ...]) -> bool:
    """Whether Python's options hold `-i` (alone or bundled, `-ic`, `-iq`): after the script,
    `-c` code or `-m` module, it reads code from its input (PYTHONINSPECT, the same, is a
    dangerous variable)."""
    skip = False
    for arg in args:
        if skip or (arg.startswith("--") and arg != "--"):
            skip = False
            continue
        if arg in ("--", "-") or not arg.startswith("-"):
            return False
        for j, letter in enumerate(arg[1:], start=2):
            if letter == "i":
                return True
            if f"-{letter}" in _PYTHON.code | _PYTHON.module:
                return False
            if f"-{letter}" in _PYTHON.valued:
                skip = j == len(arg)  # `-X dev`: the value is the next word
                break
    return False


def module_call(argv: tuple[str, ...]) -> ModuleCall | None:
    """The module an interpreter runs (`python3 -X dev -m profile -o x y.py`), or None."""
    found = _walk(argv) if argv else ()
    return found if isinstance(found, ModuleCall) and found.words else None


def _walk(argv: tuple[str, ...]) -> tuple[str, ...] | ModuleCall:
    family = _family(program_name(argv[0]))
    table = INTERPRETERS.get(family) if family is not None else None
    if table is None:
        return ()
    args = argv[1:]
    if table.command is not None:
        if not args or args[0] != table.command:
            return ()
        args = args[1:]
    return _scripts(args, table)


_HELP = _s("--version", "--help", "-h")
QUERIES: Mapping[str, frozenset[str]] = {
    "python": _HELP | _s("-?", "--help-all", "--help-env", "--help-xoptions"),
    "pypy": _HELP,
    "node": _HELP | _s("-v", "--v8-options"),
    **dict.fromkeys(NODE_RUNNERS, _HELP | _s("-v")),
    "perl": _HELP | _s("-v", "-V"),
    "ruby": _HELP | _s("-v", "--copyright"),
    "php": _HELP | _s("-v", "-m", "--modules", "-i", "--info"),
    "Rscript": _HELP,
    "lua": _s("-v"),
    "deno": _HELP | _s("-V"),
    "bun": _HELP | _s("-v", "--revision"),
}
"""Per interpreter, the options with which it prints its version, usage or build and exits
before it reads any code, given any number of times and in any mix (`python3 -V -V`, `node
--version --version`, `ruby -v`: with no script, ruby's and lua's `-v` exit too)."""
_PYTHON_VERSION = re.compile(r"-V+")
"""Python's version flag repeated in one word (`-VV`: the build too)."""


_ASKS = frozenset({"--version", "--help", "-h"})
TOOL_QUERIES: Mapping[str, frozenset[str]] = {
    **dict.fromkeys(("npm", "pnpm", "yarn"), _ASKS | {"-v"}),
    **dict.fromkeys(("pip", "pip3", "cargo", "rustc", "rustup", "uv", "poetry"), _ASKS | {"-V"}),
    "go": frozenset({"version"}),
}
"""A package manager's or toolchain's one word asking its version or usage (`npm --version`,
`go version`): it prints and exits, running no code of a project's."""


def is_query(argv: tuple[str, ...]) -> bool:
    """Whether `argv` only asks an interpreter, a package manager or a toolchain its version or
    usage: runs no code."""
    name = program_name(argv[0]) if argv else ""
    if name in TOOL_QUERIES:
        return len(argv) == 2 and argv[1] in TOOL_QUERIES[name]
    family = _family(name) if argv else None
    if family is None or len(argv) < 2:
        return False
    queries = QUERIES[family]
    python = INTERPRETERS[family] is _PYTHON
    return all(
        arg in queries or (python and _PYTHON_VERSION.fullmatch(arg) is not None)
        for arg in argv[1:]
    )


def _family(name: str) -> str | None:
    if name in INTERPRETERS:
        return name
    if name in _NAMES:
        return _NAMES[name]
    found = _FAMILY.fullmatch(name)
    return found.group(1) if found else None


def _scripts(args: tuple[str, ...], table: Interpreter) -> tuple[str, ...] | ModuleCall:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if arg in table.code or any(arg.startswith(c + "=") for c in table.code if c[:2] == "--"):
            return ()
        if arg in table.module:
            return ModuleCall(module_that_runs(args[i + 1 :]))
        if any(arg.startswith(v + "=") for v in table.valued) or arg == "-":
            i += 1 if arg != "-" else len(args)
            continue
        if arg in table.valued:
            i += 2
            continue
        if arg.startswith("-") and len(arg) > 1:
            if table.bundles and arg[1] != "-":
                bundled = _bundle(arg, args[i + 1 :], table)
                if not isinstance(bundled, int):
                    return bundled
                i += bundled
                continue
            i += 1
            continue
        break
    return (args[i],) if i < len(args) else ()


def _bundle(
    arg: str, after: tuple[str, ...], table: Interpreter
) -> tuple[str, ...] | ModuleCall | int:
    """Short flags in one word (`-Sc`, `-uEm pdb`, `perl -lne`, `node -pe`): a code letter
    ends it with no script; a module letter runs the rest of the word, or the next word, as
    the module; a valued letter takes the rest of the word, or the next word. Otherwise how
    many words the bundle is."""
    for j, letter in enumerate(arg[1:], start=2):
        option, rest = f"-{letter}", arg[j:]
        if option in table.code:
            return ()
        if option in table.module:
            return ModuleCall(module_that_runs((rest, *after) if rest else after))
        if option in table.valued:
            return 1 if rest else 2
    return 1


def _module(args: tuple[str, ...]) -> tuple[str, ...]:
    if not args:
        return ()
    if args[0] == "coverage":
        return _coverage(args[1:])
    spec = PYTHON_MODULES.get(args[0])
    return _module_scripts(args[1:], spec) if spec is not None else ()


def _coverage(args: tuple[str, ...]) -> tuple[str, ...]:
    if not args or args[0] != "run":
        return ()
    return _module_scripts(args[1:], PYTHON_MODULES["coverage"])


def _module_scripts(args: tuple[str, ...], spec: Module) -> tuple[str, ...]:
    found: list[str] = []
    positionals: list[str] = []
    module_named = False
    i = 0
    while i < len(args):
        arg = args[i]
        option, eq, value = arg.partition("=")
        if arg == "--":
            positionals += args[i + 1 :]
            break
        if option in spec.loads:
            value = value if eq else (args[i + 1] if i + 1 < len(args) else "")
            found += [value] if value else []
            i += 1 if eq else 2
            continue
        if option in spec.valued:
            i += 1 if eq else 2
            continue
        if arg in spec.names_module:
            module_named = True
            i += 1
            continue
        if arg.startswith("-") and len(arg) > 1:
            i += 1
            continue
        positionals.append(arg)
        if spec.scripts == "first":
            break
        i += 1
    if module_named:
        return tuple(found)
    if spec.scripts == "first":
        return (*found, *positionals[:1])
    if spec.scripts == "all":
        return (*found, *positionals)
    if spec.scripts == "discover" and positionals[:1] == ["discover"]:
        # discover [START [PATTERN [TOP]]]: START and TOP are directories of tests.
        rest = positionals[1:]
        return (*found, *rest[:1], *rest[2:3])
    return (*found, *(p for p in positionals if "/" in p or p.endswith(".py")))
