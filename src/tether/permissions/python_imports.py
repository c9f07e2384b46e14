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


def python_import_files(
    argv: tuple[str, ...], module_path: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """The paths, relative to where the command runs, that Python may import the modules it is
    told to by name from: the working directory where it is on sys.path, then each directory
    of `module_path` (PYTHONPATH's, in order; Python searches them before its own library, so
    a module there shadows one of the standard library's, `http/server.py`)."""
    return _imports(argv, module_path)[0]


def pycache_dirs(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The directories `-X pycache_prefix=DIR` has Python load compiled code from (and
    write it to)."""
    return _imports(argv, ())[1]


def _imports(
    argv: tuple[str, ...], module_path: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
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
        named, discovered = _module_argv(call.words)
        modules += named
    else:
        discovered = []
    found = [f for m in dict.fromkeys(modules) for f in _module_files(m)]
    files = list(found) if path_first else []
    files += [f"{entry.rstrip('/')}/{f[2:]}" for entry in module_path for f in found]
    files += discovered
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
        literal = _literal_call(node)
        if literal is not None:  # exec('import m'), __import__('m'), import_module('m')
            kind, text = literal
            found += _imported(text) if kind == "code" else [text]
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"]
    return found


_CODE_CALLS = frozenset({"exec", "eval", "compile"})
_IMPORT_CALLS = frozenset({"__import__", "import_module"})


def _literal_call(node: ast.AST) -> tuple[str, str] | None:
    """`exec('CODE')`, `eval`, `compile` of a literal (its code), `__import__('m')` and
    `importlib.import_module('m')` (a module name)."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )
    first = node.args[0]
    if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
        return None
    if name in _CODE_CALLS:
        return "code", first.value
    return ("module", first.value) if name in _IMPORT_CALLS else None


_UNITTEST_VALUED = frozenset(
    {"-k", "--durations", "-s", "--start-directory", "-p", "--pattern", "-t"}
    | {"--top-level-directory"}
)
_TIMEIT_VALUED = frozenset({"-n", "--number", "-r", "--repeat", "-u", "--unit"})


def _module_argv(words: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """What a module run as a program imports by the names its own arguments give: the
    modules (`unittest M`, `timeit -s 'import M' STMT`) and the files (`unittest discover -s
    DIR -p PATTERN`: the pattern's files in the start directory)."""
    module, args = words[0], words[1:]
    if module == "timeit":
        return [m for code in _timeit_code(args) for m in _imported(code)], []
    if module != "unittest":
        return [], []
    values: dict[str, str] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, attached = arg.partition("=")
        if name in _UNITTEST_VALUED:
            value = attached if eq else (args[i + 1] if i + 1 < len(args) else "")
            values[name.lstrip("-")[:1]] = value
            i += 1 if eq else 2
            continue
        if arg[:2] in ("-s", "-p", "-t", "-k") and len(arg) > 2 and not arg.startswith("--"):
            values[arg[1]] = arg[2:]
        elif not arg.startswith("-"):
            positional.append(arg)
        i += 1
    if positional[:1] != ["discover"]:
        # `unittest M`, `unittest pkg/test_x.py` (a path read as its module's name)
        names = [p.removesuffix(".py").replace("/", ".") for p in positional]
        return names, []
    rest = positional[1:]
    start = values.get("s") or (rest[0] if rest else ".")
    pattern = values.get("p") or (rest[1] if len(rest) > 1 else "test*.py")
    top = values.get("t") or (rest[2] if len(rest) > 2 else "")
    found = [f"{start.rstrip('/')}/{pattern}", f"{start.rstrip('/')}/*/{pattern}"]
    return [], [*found, *([f"{top.rstrip('/')}/{pattern}"] if top else [])]


def _timeit_code(args: tuple[str, ...]) -> list[str]:
    """timeit's set-up and statements: the code it runs."""
    found: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, attached = arg.partition("=")
        if name in ("-s", "--setup"):
            found.append(attached if eq else (args[i + 1] if i + 1 < len(args) else ""))
            i += 1 if eq else 2
            continue
        if arg.startswith("-s") and not arg.startswith("--"):
            found.append(arg[2:])
        elif name in _TIMEIT_VALUED and not eq:
            i += 1
        elif not arg.startswith("-") or arg == "--":
            found += [a for a in args[i:] if a != "--"]
            break
        i += 1
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
