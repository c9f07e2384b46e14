"""What a module run as a program (`python3 -m MODULE ARGS`) reads, writes, serves and runs
besides the files its arguments name (those are judged as any program's words are), as a
table of the standard library's and common tools' command lines: `dotenv` reads `.env`
unasked, `gzip` and `json.tool` write files their positionals imply, `zipapp` and
`compileall` read or write whole trees (`compileall` with no directory writes into the
interpreter's own), formatters rewrite the files they are given, `sqlite3` SQL may open
any file (`ATTACH`, `VACUUM INTO`), `dotenv run`, `webbrowser` and `twine upload` run
programs or send files elsewhere. The modules that run code are interpreter_scripts'
and interpreter_code's."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tether.permissions.coverage_files import coverage_writes
from tether.permissions.interpreter_scripts import module_call
from tether.permissions.option_names import OptionGrammar, option_values
from tether.permissions.shell_words import DYN, is_literal, program_name


@dataclass(frozen=True)
class ModuleFiles:
    writes: tuple[str, ...] = ()
    """Files and directories the module writes (`profile -o OUT`, `trace -C DIR`, `venv DIR`)."""
    serves: tuple[str, ...] = ()
    """Directories it serves to whoever connects (`http.server -d DIR`) or archives
    (`tarfile -c`, `zipfile -c`, `zipapp`): read whole."""
    reads: tuple[str, ...] = ()
    """Files it reads that no argument names (`dotenv`: `.env`)."""
    unseen: tuple[str, ...] = ()
    """Why it runs programs the engine cannot see (`dotenv run`, `webbrowser`)."""
    asks: tuple[str, ...] = ()
    """Why it is asked: files it opens that are not known (`sqlite3` SQL), writes into the
    interpreter's own directories, packages it publishes."""


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


_PROGRAMS = _s("coverage")
"""Modules installed as a program of the same name and command line whose writes the program's
own table does not give (formatters' rewrites, `virtualenv DIR` are their tables')."""


_MODULE_WRITES: Mapping[str, frozenset[str]] = {
    "profile": _s("-o"),
    "cProfile": _s("-o"),
    "trace": _s("-C", "--coverdir", "-f", "--file"),
}
"""Options whose value the module writes (a file, or a directory it fills)."""
_VALUED: Mapping[str, frozenset[str]] = {
    "venv": _s("--prompt"),
    "virtualenv": _s("--prompt", "-p", "--python", "--activators"),
    "zipapp": _s("-o", "--output", "-p", "--python", "-m", "--main"),
    "compileall": _s("-d", "-s", "-p", "-x", "-i", "-r", "-j", "-o", "--invalidation-mode"),
    "json.tool": _s("--indent"),
    "gzip": _s(),
    "dotenv": _s("-f", "--file", "-e", "--export"),
    "black": _s("-l", "--line-length", "-t", "--target-version", "--config", "--include")
    | _s("--exclude", "--extend-exclude", "--force-exclude", "-W", "--workers"),
    "isort": _s("--settings-path", "--settings-file", "--sp", "-l", "--line-length")
    | _s("-p", "--project", "--profile", "-j", "--jobs", "-s", "--skip"),
    "autopep8": _s("--select", "--ignore", "--max-line-length", "-j", "--jobs"),
    "yapf": _s("--style", "-e", "--exclude", "-p", "--parallel"),
    "lib2to3": _s("-f", "--fix", "-x", "--nofix", "-j", "--processes", "-o", "--output-dir"),
    "sqlite3": _s("-cmd"),
}
"""Options taking a separate value, so that the positionals are found."""
_SQL_OPENS = re.compile(
    r"\b(attach|vacuum|backup|restore|load_extension|readfile|writefile)\b", re.I
)
"""SQL that opens files besides the database (`ATTACH 'x' AS y`, `VACUUM INTO 'x'`)."""


def module_files(argv: tuple[str, ...]) -> ModuleFiles:
    """What the module an interpreter runs reads, writes, serves or runs unseen, by its
    options and the module's known behaviour; the module's own program is that module
    (`coverage html -d DIR` is `python3 -m coverage html -d DIR`)."""
    call = module_call(argv)
    if call is not None:
        words = call.words
    elif argv and is_literal(argv[0]) and program_name(argv[0]) in _PROGRAMS:
        words = (program_name(argv[0]), *argv[1:])
    else:
        return ModuleFiles()
    module, args = words[0], words[1:]
    if _asks_help(args):
        return ModuleFiles()
    behaviour = _BEHAVIOUR.get(module)
    if behaviour is not None:
        return behaviour(args, _positionals(args, _VALUED.get(module, _s())))
    if module == "http.server":
        served = _option_values(args, _s("-d", "--directory"))
        return ModuleFiles(serves=tuple(served) or (".",))
    if module in ("tarfile", "zipfile"):
        return _archived(args)
    if module == "coverage":
        return ModuleFiles(writes=coverage_writes(args))
    options = _MODULE_WRITES.get(module)
    return ModuleFiles(writes=tuple(_option_values(args, options))) if options else ModuleFiles()


def _asks_help(args: tuple[str, ...]) -> bool:
    """Whether a module's command line asks only for its help (`-h`, `--help` before any
    other word that is not an option): its parser prints that and exits (argparse, optparse
    and click alike), doing nothing else."""
    for arg in args:
        if arg in ("-h", "--help"):
            return True
        if arg == "--" or not arg.startswith("-"):
            return False
    return False


def _venv(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    return ModuleFiles(writes=tuple(positionals))


def _dotenv(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    """python-dotenv's CLI: `[-f FILE] list|get|set|unset|run`, FILE `.env` unless given;
    `run CMD` runs a program with the file's variables."""
    files = tuple(_option_values(args, _s("-f", "--file"))) or (".env",)
    command = positionals[0] if positionals else "list"
    unseen = (f"`-m dotenv {command}` runs the program it is given",) if command == "run" else ()
    writes = files if command in ("set", "unset") or not is_literal(command) else ()
    return ModuleFiles(reads=files, writes=writes, unseen=unseen)


def _gzip(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    """`gzip FILE` writes FILE.gz; `-d FILE.gz` writes FILE."""
    if any(a in ("-d", "--decompress") for a in args):
        return ModuleFiles(writes=tuple(p.removesuffix(".gz") for p in positionals))
    return ModuleFiles(writes=tuple(f"{p}.gz" for p in positionals if p != "-"))


def _json_tool(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    """`json.tool [INFILE [OUTFILE]]`: OUTFILE written."""
    return ModuleFiles(writes=tuple(positionals[1:2]))


def _zipapp(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    """`zipapp SOURCE [-o OUT]`: every file below SOURCE is put in OUT (`SOURCE.pyz`)."""
    outputs = _option_values(args, _s("-o", "--output"))
    source = positionals[:1]
    written = outputs or [f"{p.rstrip('/')}.pyz" for p in source]
    return ModuleFiles(writes=tuple(written), serves=tuple(source) or (DYN,))


def _compileall(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    """`compileall [DIR|FILE...]` writes byte code below each; with none (and no `-i`
    list), below every directory of `sys.path`: the interpreter's own."""
    lists = _option_values(args, _s("-i"))
    if not positionals and not lists:
        return ModuleFiles(asks=("`-m compileall` with no directory writes into sys.path",))
    # Byte code goes to `__pycache__` below each directory (and beside each file).
    written = tuple(f"{_directory(p)}/__pycache__" for p in positionals)
    return ModuleFiles(writes=written, reads=tuple(lists))


def _directory(path: str) -> str:
    if path.endswith(".py"):
        return path.rpartition("/")[0] or "."
    return path.rstrip("/") or "/"


def _rewrites(*checks: str, needs: tuple[str, ...] = ()) -> Behaviour:
    """A formatter that rewrites the files it is given in place: always (`black`), or
    only with one of `needs` (`autopep8 -i`); never with one of `checks`."""

    def judge(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
        if any(a in checks for a in args) or (needs and not any(a in needs for a in args)):
            return ModuleFiles()
        return ModuleFiles(writes=tuple(positionals))

    return judge


def _ruff(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    if not positionals:
        return ModuleFiles()
    command, paths = positionals[0], tuple(positionals[1:]) or (".",)
    if command == "format" and not {"--check", "--diff"} & set(args):
        return ModuleFiles(writes=paths)
    if command == "check" and {"--fix", "--unsafe-fixes"} & set(args) and "--diff" not in args:
        return ModuleFiles(writes=paths)
    return ModuleFiles()


def _sqlite3(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    """`sqlite3 [DB [SQL]]`: DB written; SQL may open other files."""
    writes = tuple(positionals[:1])
    sql = " ".join(positionals[1:])
    if not is_literal(sql) or _SQL_OPENS.search(sql):
        return ModuleFiles(writes=writes, asks=("`-m sqlite3` SQL opens the files it names",))
    return ModuleFiles(writes=writes)


def _says(reason: str, *, unless: tuple[str, ...] = ()) -> Behaviour:
    def judge(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
        if unless and positionals[:1] and positionals[0] in unless:
            return ModuleFiles()
        return ModuleFiles(unseen=(reason,))

    return judge


def _twine(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    if positionals[:1] == ["upload"] or not is_literal(" ".join(positionals[:1])):
        return ModuleFiles(asks=("`-m twine upload` publishes packages to an index",))
    return ModuleFiles()


def _ensurepip(args: tuple[str, ...], positionals: list[str]) -> ModuleFiles:
    roots = _option_values(args, _s("--root"))
    if roots:
        return ModuleFiles(writes=tuple(roots))
    return ModuleFiles(asks=("`-m ensurepip` installs pip into the interpreter's own directories",))


Behaviour = Callable[[tuple[str, ...], list[str]], ModuleFiles]
_BEHAVIOUR: Mapping[str, Behaviour] = {
    "venv": _venv,
    "virtualenv": _venv,
    "dotenv": _dotenv,
    "gzip": _gzip,
    "json.tool": _json_tool,
    "zipapp": _zipapp,
    "compileall": _compileall,
    "black": _rewrites("--check", "--diff", "--code", "-c"),
    "isort": _rewrites("--check", "--check-only", "-c", "--diff", "--df", "--stdout"),
    "autopep8": _rewrites("--diff", needs=("-i", "--in-place")),
    "yapf": _rewrites("--diff", "-d", needs=("-i", "--in-place")),
    "lib2to3": _rewrites(needs=("-w", "--write")),
    "ruff": _ruff,
    "sqlite3": _sqlite3,
    "webbrowser": _says("`-m webbrowser` starts a web browser"),
    "twine": _twine,
    "ensurepip": _ensurepip,
}
"""Modules whose behaviour is more than options naming files."""


def _positionals(args: tuple[str, ...], valued: frozenset[str]) -> list[str]:
    found: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            found += args[i + 1 :]
            break
        if arg.startswith("-") and arg != "-":
            i += 2 if arg in valued else 1
            continue
        found.append(arg)
        i += 1
    return found


def _archived(args: tuple[str, ...]) -> ModuleFiles:
    """`-m tarfile|zipfile -c ARCHIVE SOURCE...`: the archive written, each source read whole
    (what is below it goes into the archive, a file a Read rule denies included)."""
    for i, arg in enumerate(args):
        if arg in ("-c", "--create") and i + 1 < len(args):
            return ModuleFiles(writes=(args[i + 1],), serves=args[i + 2 :] or (DYN,))
    return ModuleFiles()


def _option_values(args: tuple[str, ...], options: frozenset[str]) -> list[str]:
    """The values of `options` in `args`, a long one by any unambiguous prefix (argparse's
    and optparse's: `coverage html --dir=DIR`)."""
    grammar = OptionGrammar(tuple(sorted(options)), prefixes=True)
    return [value for value in option_values(args, grammar) if value]
