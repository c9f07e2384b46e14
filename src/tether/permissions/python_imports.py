"""The files Python imports code from by a module's name, found on sys.path as Python finds
them: the working directory first (unless `-I` or `-P`), so a module or package there is code
run, judged as running that file (`python3 -m job` as `python3 job.py`: one the command writes
is code not read; one a Read rule denies is denied; a link leading outside is unseen). The
names come from Python's own options: `-m MODULE` (and the module that module runs: `runpy`,
`cProfile -m`), the imports of `-c CODE` (`import m`, `from m import x`) and `-X
presite=MODULE` (debug builds); `-X pycache_prefix=DIR` loads compiled code from DIR. A
warning category `-W ::MODULE.CLASS` is imported before the working directory is on
sys.path: not from here."""

from __future__ import annotations

import ast
import re

from tether.permissions.interpreter_scripts import PYTHON_VALUED, module_call
from tether.permissions.run_as_main import module_that_runs
from tether.permissions.shell_words import is_literal, program_name

_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_SUFFIXES = (".py", ".pyc", ".so", ".pyw")


def python_import_files(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The paths, relative to where the command runs, that Python may import the modules it is
    told to by name from (only where the working directory is on sys.path)."""
    return _imports(argv)[0]


def pycache_dirs(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The directories `-X pycache_prefix=DIR` has Python load compiled code from (and
    write it to)."""
    return _imports(argv)[1]


def _imports(argv: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not argv or not is_literal(argv[0]) or not _PYTHON.fullmatch(program_name(argv[0])):
        return (), ()
    modules: list[str] = []
    prefixes: list[str] = []
    path_first = True
    for option, value in _options(argv[1:]):
        if option in ("I", "P"):
            path_first = False
        elif option == "c":
            modules += _imported(value)
        elif option == "X":
            key, _, setting = value.partition("=")
            if key == "presite":
                modules.append(setting)
            elif key == "pycache_prefix":
                prefixes.append(setting)
    call = module_call(argv)
    if call is not None:
        modules += [call.words[0], module_that_runs(call.words)[0]]
        # `-m cProfile -m MOD`, `-m pdb -m MOD`: the module it runs in turn
        inner = call.words[1:]
        if "-m" in inner and inner.index("-m") + 1 < len(inner):
            modules.append(inner[inner.index("-m") + 1])
    files = [f for m in dict.fromkeys(modules) for f in _module_files(m)] if path_first else []
    return tuple(files), tuple(p for p in prefixes if p)


def _imported(code: str) -> list[str]:
    """The modules inline code imports by absolute name (`import a.b`, `from a import b`):
    what Python reads is what `ast` reads; code that does not parse imports nothing."""
    if "import" not in code:
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"]
    return found


def _options(args: tuple[str, ...]) -> list[tuple[str, str]]:
    """Python's own options before its script, `-c` or `-m`: each letter with its value
    (`-W`, `-X`: the rest of the word or the next one)."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-", "--") or not arg.startswith("-"):
            break
        if arg.startswith("--"):
            i += 2 if arg in PYTHON_VALUED else 1
            continue
        for j, letter in enumerate(arg[1:], start=2):
            if letter == "c":
                code = arg[j:] or (args[i + 1] if i + 1 < len(args) else "")
                return [*found, ("c", code)]
            if letter == "m":
                return found
            if letter in "WX":
                value = arg[j:] or (args[i + 1] if i + 1 < len(args) else "")
                found.append((letter, value))
                i += 0 if arg[j:] else 1
                break
            found.append((letter, ""))
        i += 1
    return found


def _module_files(name: str) -> list[str]:
    """Where module `name` (`a.b`) is found in one sys.path directory: each package on the
    way (`a/__init__.py`; a parent found as a module file, `a.py`, runs before the import
    fails), the module as a file of each kind, or a package with its `__main__`. A name
    that is not a module's runs nothing from here."""
    if not _NAME.fullmatch(name):
        return []
    parts = name.split(".")
    files: list[str] = []
    for k in range(1, len(parts) + 1):
        base = "/".join(parts[:k])
        files += [base + suffix for suffix in _SUFFIXES]  # a parent as a module: it runs
        files.append(f"{base}/__init__.py")
    files.append(f"{'/'.join(parts)}/__main__.py")
    return [f"./{f}" for f in files]
