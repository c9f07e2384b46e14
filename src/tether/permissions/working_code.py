"""Programs whose code comes from the directory they run in: make reads ./Makefile, npm and
its kin ./package.json and ./node_modules, Python puts its working directory first on
sys.path for `-c`, `-m` and code read from the input, pytest loads ./conftest.py, cargo
builds ./build.rs. Such a program runs code from wherever the shell is when it starts, so it
is judged at each directory the shell walker tracks (shell_places.py): after a `cd` out of
the workspace, or to a directory not known before the command runs, that code is unseen."""

from __future__ import annotations

import re

from tether.permissions.interpreter_scripts import PYTHON_VALUED, interpreter_scripts, module_call
from tether.permissions.make_options import make_places
from tether.permissions.node_runners import NODE_RUNNERS
from tether.permissions.shell_words import is_literal, program_name

_MAKE = frozenset({"make", "gmake", "bmake", "pmake"})
_PACKAGE_RUNNERS = frozenset({"npm", "pnpm", "yarn", "npx", "pnpx", "corepack", "bun", "bunx"})
_PACKAGE_PLACES = ("--prefix", "-C", "--dir", "--cwd")
"""Options that name the directory a package runner works in instead of its own."""
_PROJECT_TOOLS = frozenset(
    {
        "pytest",
        "py.test",
        "cargo",
        "tox",
        "nox",
        "rake",
        "just",
        "gradle",
        "mvn",
        "ninja",
        "go",
        "poetry",
        "pipenv",
        "hatch",
        "pdm",
        "invoke",
        "bundle",
    }
)
"""Build and test runners that read a project file (and the code it names) from their
working directory."""
_PYTHON = re.compile(r"(python|pypy)[0-9.]*(-config)?")
_NODE = frozenset({"node", "nodejs", *NODE_RUNNERS})


def runs_working_code(argv: tuple[str, ...]) -> bool:
    """Whether `argv` runs code found in the directory it starts in (before any option that
    moves it: `make -C`, `npm --prefix` name their directory and are judged as paths)."""
    if not argv or not is_literal(argv[0]):
        return False
    name = program_name(argv[0])
    args = argv[1:]
    if name in _MAKE:
        return not any(letter == "C" for letter, _ in make_places(args))
    if name in _PACKAGE_RUNNERS:
        return not any(
            arg == option or arg.startswith(option + "=")
            for arg in args
            for option in _PACKAGE_PLACES
        )
    if name in _PROJECT_TOOLS:
        return True
    if _PYTHON.fullmatch(name):
        return _python_path_first(args) and (
            module_call(argv) is not None or not interpreter_scripts(argv)
        )
    if name in _NODE:
        return not interpreter_scripts(argv)  # `-e`, `-p` or the input: `require` from here
    return False


def _python_path_first(args: tuple[str, ...]) -> bool:
    """Whether Python puts the working directory on sys.path: not under `-I` or `-P`."""
    for i, arg in enumerate(args):
        if not arg.startswith("-") or arg in ("-", "--"):
            return True
        if arg.startswith("--"):
            if arg in PYTHON_VALUED:  # `--check-hash-based-pycs always`: its value next
                return _python_path_first(args[i + 2 :])
            continue
        for j, letter in enumerate(arg[1:]):
            if letter in "IP":
                return False
            if letter in "cm":
                return True
            if letter in "WX":
                if j == len(arg) - 2 and i + 1 < len(args):
                    # The value is the next word; the loop moves past it as a non-option
                    # only when it is one, so skip it here.
                    return _python_path_first(args[i + 2 :])
                break
    return True
