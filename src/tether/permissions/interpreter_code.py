"""Code an interpreter runs that is no file of the user's, one capability however it is given:
inline (`python3 -c`, `node -e/-p/--eval/--print`, `perl -e/-E`, `ruby -e`, `php -r`,
`Rscript -e`, `lua -e`, `bun -e`, `deno eval`), from its input (`python3 -`, no script at all,
`/dev/stdin`, `<(...)`: a heredoc or a pipe), through a module that runs code (`python3 -m
timeit/pdb/cProfile/trace/runpy/doctest/profile`, the prompts of `-m code/asyncio`), or a
makefile from its input (`make -f -`, `--file=/dev/stdin`, `-f <(...)`, make_options.py).

Judged alike (bash_policy): deny and ask rules see the command as `PROGRAM -c CODE` too (a
`Bash(python3 -c *)` deny covers `python3 - <<EOF`); a file a Read rule denies, named anywhere
in inline code, is denied as reading it is (`node -p 'fs.readFileSync(".env")'`); code from the
input, which the engine does not read, is code the parser cannot see (denied where a deny rule
exists, asked otherwise), as for `x | bash`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tether.permissions.input_code import input_code, sqlite_code
from tether.permissions.interpreter_scripts import PYTHON_VALUED, python_inspects
from tether.permissions.make_command_line import command_line_unseen
from tether.permissions.make_options import makefiles, unread_code
from tether.permissions.node_options import node_takes_value
from tether.permissions.node_runners import NODE_RUNNERS, node_words
from tether.permissions.run_as_main import module_that_runs
from tether.permissions.scheduled_code import scheduled_code
from tether.permissions.shell_words import DYN, PROCESS_SUBSTITUTION_PATH, is_literal, program_name
from tether.permissions.shells import GENERATED_CODE

_INLINE: dict[str, tuple[str, ...]] = {
    "python": ("-c",),
    "node": ("-e", "-p", "--eval", "--print"),
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "php": ("-r",),
    "Rscript": ("-e",),
    "lua": ("-e",),
    "bun": ("-e", "--eval", "-p", "--print"),
}
_NAMES = {"python3": "python", "python2": "python", "pypy3": "python", "pypy": "python"} | {
    "nodejs": "node",
    "luajit": "lua",
}
_VERSIONED = re.compile(r"(python|ruby|php|perl|lua|node)[0-9][0-9.]*")
_CODE_MODULES = frozenset(
    {"pdb", "ipdb", "pudb", "cProfile", "profile", "trace", "runpy", "doctest"}
)
_PROMPTS = frozenset({"code", "asyncio", "_pyrepl", "idlelib", "IPython"})
"""Modules that are a prompt (or take code in their options: `idlelib -c`): code from the
input whatever their arguments."""
_MAKES = frozenset({"make", "gmake", "bmake"})
_FROM_INPUT = ("-", *GENERATED_CODE)
_VALUED = frozenset({"-W", "-X", "-m", "-r", "--require", "-I", "-M", "--import", "--loader"})
"""Options of these interpreters taking a separate value (the script comes after them)."""
_PYTHON_VALUED = PYTHON_VALUED
"""Python's (its `-I` is isolated mode, a flag; `-m` ends the options)."""
_EXITS: dict[str, frozenset[str]] = {
    "python": frozenset({"-V", "-VV", "--version", "-h", "-?", "--help", "--help-all"})
    | frozenset({"--help-env", "--help-xoptions"}),
    "node": frozenset({"-v", "--version", "-h", "--help", "--v8-options", "--test"})
    | frozenset({"-c", "--check"}),
    "perl": frozenset({"-v", "-V", "--version", "-h", "--help"}),
    "ruby": frozenset({"--version", "-h", "--help", "--copyright"}),
    "php": frozenset({"-v", "--version", "-h", "--help", "-m", "--modules", "-i", "--info"}),
    "Rscript": frozenset({"--version", "--help"}),
    "lua": frozenset(),
    "bun": frozenset({"-v", "--version", "-h", "--help", "--revision"}),
}
"""Options after which an interpreter given no script reads no code from its input: it prints
and exits (`--version`, `--help`), runs the user's test files (`node --test`), or only checks
syntax (`node --check`). Not `perl -c`: it runs BEGIN blocks."""
_ALONE = {"ruby": "-v", "lua": "-v"}
"""`ruby -v` and `lua -v` exit only when given alone: with any other switch they go on to read
code (ruby turns on verbose mode; lua -v -i starts its prompt)."""
_PYTHON_EXIT_BUNDLE = re.compile(r"-[bBdEiIOPqsSuvR]*[Vh?][bBdEiIOPqsSuvVR?h]*")
"""Python's short flags bundled with one that exits (`-VV`, `-BV`, `-qh`): no letter of the
bundle takes a value, so none swallows the V."""
_PATH_WORD = re.compile(r"[A-Za-z0-9_.~/+@%-]*[./][A-Za-z0-9_.~/+@%-]*")
MAX_NAMES = 64
"""Words of inline code looked at as file names (each a file check)."""


@dataclass(frozen=True)
class CodeUse:
    flag: str
    """The option rules see it given with (`-c`, `-e`...)."""
    code: str | None
    """The code, or None when it is not seen: it comes from the input, or from words that
    are not read (`make -f $X`, `python3 -m IPython -c CODE`)."""
    only_input: bool = True
    """Code not seen comes from the input alone, so an empty input gives none."""
    source: str | None = None
    """Where code not seen from the input comes from (a file, an editor), if told."""
    also_input: bool = False
    """Besides `code`, code comes from the input (`python3 -i -c CODE`)."""
    language: str = ""
    """The interpreter family that reads it (`python`, `node`...; `make`, `sqlite3`)."""


def code_use(argv: tuple[str, ...]) -> CodeUse | None:
    """What code `argv` runs that is not a script of the user's; None for a script or for a
    program that is no interpreter."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    if name == "sqlite3":
        reads_input, unseen = sqlite_code(argv[1:])
        if unseen is not None:
            return CodeUse("-cmd", None, only_input=False)
        return CodeUse("-cmd", None) if reads_input else None
    scheduled = scheduled_code(name, argv[1:])
    if scheduled is not None:
        only_input, source = scheduled
        return CodeUse("-c", None, only_input=only_input, source=source)
    found = _interpreter_code(name, argv)
    if found is None and input_code(name, argv[1:]):
        # A debugger's or a prompt's commands, Ex commands (input_code.py).
        return CodeUse("-c", None)
    return found


def _interpreter_code(name: str, argv: tuple[str, ...]) -> CodeUse | None:
    if name in _MAKES:
        return _makefile(argv[1:])
    if name == "cmake" and "--build" in argv and "--" in argv:
        # What follows `--` goes to the native build tool: make's arguments.
        return _makefile(argv[argv.index("--") + 1 :])
    if name == "deno":
        if len(argv) > 2 and argv[1] == "eval":
            return CodeUse("eval", argv[-1], language="deno")
        return None
    if name in NODE_RUNNERS:
        # tsx and ts-node hand node what they do not read: `tsx -e CODE` is `node -e CODE`.
        argv = (name, *node_words(name, argv[1:], node_takes_value).words)
        name = "node"
    versioned = _VERSIONED.fullmatch(name)
    family = _NAMES.get(name) or (versioned.group(1) if versioned else name)
    if family == "python" or family == "python3":
        family = "python"
    inline = _INLINE.get(family)
    if inline is None:
        return None
    found = _interpreter(argv[1:], inline, family)
    if family == "python" and python_inspects(argv[1:]):
        # `-i`: after the script, the code or the module, code from the input.
        found = CodeUse(inline[0], None) if found is None else found
        found = replace(found, also_input=True) if found.code is not None else found
    return replace(found, language=family) if found is not None else None


def _interpreter(args: tuple[str, ...], inline: tuple[str, ...], family: str) -> CodeUse | None:
    flag, python = inline[0], family == "python"
    exits = args == (_ALONE.get(family),)
    i = 0
    while i < len(args):
        arg = args[i]
        for option in inline:
            if arg == option:
                return CodeUse(option, args[i + 1] if i + 1 < len(args) else DYN)
            if option.startswith("--") and arg.startswith(option + "="):
                return CodeUse(option, arg[len(option) + 1 :])
            if not option.startswith("--") and arg.startswith(option) and arg[:2] != "--":
                return _attached(option, arg[len(option) :], args[i + 1 : i + 2], inline)
        if python and arg == "-m":
            return _module(args[i + 1 :], flag)
        if python and len(arg) > 2 and arg[0] == "-" and arg[1] != "-":
            bundled = _python_bundle(arg, args[i + 1 :], flag)
            if bundled is not None:
                return bundled[0]
        if arg == "--":
            i += 1
            break
        if arg.startswith("-") and arg != "-":
            exits = exits or _exits(arg, family)
            i += 2 if _takes_value(arg, family) else 1
            continue
        break
    if i >= len(args):
        return None if exits else CodeUse(flag, None)
    if args[i].startswith(_FROM_INPUT) or args[i] == PROCESS_SUBSTITUTION_PATH:
        return CodeUse(flag, None)
    return None


def _takes_value(arg: str, family: str) -> bool:
    """Whether `arg` takes the next word as its value: node's table for node (`--title x`,
    `--input-type module`: never the script), the few of the others."""
    if family == "node":
        return node_takes_value(arg)
    return arg in (_PYTHON_VALUED if family == "python" else _VALUED)


def _python_bundle(arg: str, after: tuple[str, ...], flag: str) -> tuple[CodeUse | None] | None:
    """Python's short flags bundled in one word (`-Sc CODE`, `-IEsc`, `-uc`, `-Sm pdb`): the
    first `c` or `m` ends the bundle, its code or module the rest of the word or the next
    word, as Python reads them; `W` and `X` take the rest as their value. None when the word
    names neither (plain flags, judged as before)."""
    for j, letter in enumerate(arg[1:], start=2):
        rest = arg[j:]
        if letter == "c":
            return (CodeUse(flag, rest or (after[0] if after else DYN)),)
        if letter == "m":
            return (_module((rest, *after) if rest else after, flag),)
        if letter in "WX":
            return None
    return None


def _attached(option: str, rest: str, after: tuple[str, ...], inline: tuple[str, ...]) -> CodeUse:
    """`-cCODE`, or bundled code flags (`node -pe CODE`, `-ep`) whose code is the next word."""
    if all(f"-{letter}" in inline for letter in rest):
        return CodeUse(option, after[0] if after else DYN)
    return CodeUse(option, rest)


def _exits(option: str, family: str) -> bool:
    """Whether `option` ends the interpreter before it would read code from its input (a
    script named after it is judged as usual)."""
    if option in _EXITS.get(family, ()):
        return True
    return family == "python" and _PYTHON_EXIT_BUNDLE.fullmatch(option) is not None


def _module(args: tuple[str, ...], flag: str) -> CodeUse | None:
    args = module_that_runs(args)
    if not args:
        return None
    module, rest = args[0], args[1:]
    if not is_literal(module):
        # Any module, those that run code or read it from the input included.
        return CodeUse(flag, None, only_input=False, source="a module named as it runs")
    if module == "timeit":
        # Its arguments are statements it runs, and so are its setup options' values.
        return CodeUse(flag, "\n".join(timeit_code(rest)) or "pass")
    if module in _PROMPTS:
        # Their options may carry code (`idlelib -c`, `IPython -c`, `-r FILE`).
        return CodeUse(flag, None, only_input=not rest)
    if module not in _CODE_MODULES:
        return None
    if module in ("pdb", "ipdb", "pudb"):
        # Its prompt reads commands from the input, a script or not (`!import os`); `-c`
        # commands run as if typed there: code not seen.
        if any(a in ("-c", "--command") or a.startswith(("-c", "--command=")) for a in rest):
            return CodeUse(flag, None, only_input=False, source=f"{module}'s -c commands")
        inner = _nested_module(rest, flag)
        if inner is not None and inner.code is not None:
            return replace(inner, also_input=True)  # `pdb -m timeit -s CODE`: both
        return CodeUse(flag, None)
    if module != "doctest" and any(a in ("-m", "--module") for a in rest):
        # `cProfile -m timeit ...`, `trace --trace -m pdb`: the module it runs, judged so.
        return _nested_module(rest, flag)
    scripts = [a for a in rest if not a.startswith("-") or a == "-"]
    from_input = any(a.startswith(_FROM_INPUT[1:]) or a == "-" for a in rest)
    if not scripts or from_input:
        return CodeUse(flag, None)
    return None


def _nested_module(rest: tuple[str, ...], flag: str) -> CodeUse | None:
    """The code of the module a module runs (`cProfile -m timeit -s CODE`), if any."""
    nested = next((k for k, a in enumerate(rest) if a in ("-m", "--module")), None)
    return _module(rest[nested + 1 :], flag) if nested is not None else None


_TIMEIT_VALUED = "nusr"
"""timeit's short options with a value (`-s SETUP` runs it)."""
_TIMEIT_LONG = {"number": True, "setup": True, "repeat": True, "unit": True} | {
    "process": False,
    "verbose": False,
    "help": False,
}
"""timeit's long options, and whether each takes a value (getopt: any unique prefix)."""


def timeit_code(args: tuple[str, ...]) -> list[str]:
    """The code `python -m timeit ARGS` runs: its setup values (`-s CODE`, `-sCODE`,
    `-vvsCODE`, `--setup=CODE`, `--se CODE`) and its statements, read as its getopt reads
    them (options end at the first other word). Where the options cannot be read, every
    word is taken as code."""
    code: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            return code + list(args[i:])
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            found = [n for n in _TIMEIT_LONG if n.startswith(name)] if name else []
            option = name if name in _TIMEIT_LONG else found[0] if len(found) == 1 else None
            if option is None or (eq and not _TIMEIT_LONG[option]):
                return list(args)
            if _TIMEIT_LONG[option] and not eq:
                if i >= len(args):
                    return list(args)
                value, i = args[i], i + 1
            if option == "setup":
                code.append(value)
            continue
        if not arg.startswith("-") or arg == "-":
            return code + list(args[i - 1 :])
        for j, letter in enumerate(arg[1:], start=2):
            if letter in _TIMEIT_VALUED:
                value = arg[j:]
                if not value:
                    if i >= len(args):
                        return list(args)
                    value, i = args[i], i + 1
                if letter == "s":
                    code.append(value)
                break
            if letter not in "pvh":
                return list(args)
    return code


def _makefile(args: tuple[str, ...]) -> CodeUse | None:
    changed = command_line_unseen(args)
    if changed is not None:
        return CodeUse("-f", None, only_input=False, source=changed)
    for value in makefiles(args):
        if value.startswith(_FROM_INPUT) or not is_literal(value):
            return CodeUse("-f", None, only_input=is_literal(value))
    unread = unread_code(args)
    if unread is not None:
        return CodeUse("-f", None, only_input=False, source=unread)
    return None


def named_words(code: str) -> list[str]:
    """Words of `code` that may name a file (they hold a `.` or a `/`): `".env"`,
    `secrets/key`."""
    words = [w for w in _PATH_WORD.findall(code) if w.strip("./")]
    return list(dict.fromkeys(words))[:MAX_NAMES]
