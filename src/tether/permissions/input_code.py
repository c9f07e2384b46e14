"""Programs that read commands able to run programs from their input, whatever their
arguments: debuggers (`gdb`, `lldb`, `python3 -m pdb SCRIPT`, `pytest --pdb`/`--trace`,
`perl -d`), Tcl shells (`tclsh`, `wish`, `expect` with no script), prompts with a shell escape
(`dc`'s `!`, `psql`'s `\\!`, `mysql`'s `system`, `ftp`/`sftp`'s `!`, `sqlite3`'s `.shell`),
Lisp, ML and R prompts, and Vim in Ex mode (`vim -e`, `vim -es`, `ex`: each input line is an
Ex command, `!cmd` among them). A pipe, heredoc or redirect into one is code not seen
(interpreter_code: judged as `PROGRAM -c CODE` whose code is the input); with no input it
reads none.

sqlite3 given its SQL as an argument reads no input; that SQL is code when it holds a dot
command (`.shell`, `.system`, `.read`, `.load`, `.output`...) or a function of the shell's
that reads, writes or loads (`readfile`, `writefile`, `edit`, `load_extension`).
"""

from __future__ import annotations

import re

from tether.permissions.command_spec import words as _names

INPUT_PROGRAMS = frozenset(
    _names(
        "gdb gdb-multiarch cgdb lldb dc psql mysql mariadb ftp sftp lftp irb ghci guile sbcl "
        "clisp racket ocaml R octave jshell scala tclsh wish jimsh expect julia iex erl swift "
        "groovysh"
    )
)
"""Programs that read commands from their input that can run programs."""
_TCL = re.compile(r"(tclsh|wish)[0-9.]*")
_EXITS = frozenset({"--version", "-version", "-v", "--help", "-help", "-h", "-V"})
_NO_INPUT: dict[str, frozenset[str]] = {
    "psql": frozenset({"-l", "--list", "-c", "--command", "-f", "--file"}),
    **dict.fromkeys(("mysql", "mariadb"), frozenset({"-e", "--execute"})),
}
"""Options with which a prompt takes its commands from its arguments, not its input."""
_SCRIPT_FIRST = frozenset(_names("tclsh wish jimsh expect guile racket ocaml julia swift"))
"""Programs that read no input when a script file is their first positional."""
_VIM = frozenset(_names("vim vi view nvim vimdiff gvim"))
_EX = frozenset(_names("ex exim"))
EDITORS = _VIM | _EX
_EX_FLAGS = frozenset({"-e", "-E", "-es", "-Es", "-s"})
_QUITS = re.compile(r"\s*:*\s*(wq|x|xit|q|quit|qa|qall|wqa|wqall|xa|xall|cq)!?\s*$")
_DEBUG_FLAGS = {"pytest": ("--pdb", "--trace"), "perl": ("-d",), "node": ("inspect",)}


def input_code(name: str, args: tuple[str, ...]) -> bool | None:
    """Whether `name ARGS` runs commands from its input (True), or None when the program is
    not one of these (or exits first)."""
    if name in _VIM or name in _EX:
        return _vim_ex_mode(name, args)
    if name.startswith("python") and args[:2] in (("-m", "pytest"), ("-m", "py.test")):
        return input_code("pytest", args[2:])
    for program, flags in _DEBUG_FLAGS.items():
        if name == program or name.startswith(program + "3"):
            given = any(a in flags or a.startswith(tuple(f + "=" for f in flags)) for a in args)
            return True if given else None
    base = "tclsh" if _TCL.fullmatch(name) else name
    if base not in INPUT_PROGRAMS:
        return None
    if any(a in _EXITS or a.partition("=")[0] in _NO_INPUT.get(base, ()) for a in args):
        return None
    positionals = [a for a in args if not a.startswith("-")]
    if base in _SCRIPT_FIRST and positionals and positionals[0] != "-":
        return None
    return True


def _vim_ex_mode(name: str, args: tuple[str, ...]) -> bool | None:
    """Vim reads Ex commands from its input in Ex mode (`-e`, `-es`, `ex`), unless a command
    it is given quits first (`vim -es -c wq file`)."""
    if name in _VIM and not any(a in _EX_FLAGS - {"-s"} for a in args):
        return None
    commands = [a[1:] for a in args if a.startswith("+")]
    commands += [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-c", "--cmd")]
    if any(_QUITS.match(c) for c in commands):
        return None
    return True


_DOT_COMMAND = re.compile(r"(^|[;\n])\s*\.")
_SHELL_FUNCTIONS = re.compile(r"\b(readfile|writefile|edit|load_extension|fts5)\s*\(", re.I)
SQLITE_VALUED = frozenset({"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs"})


def sqlite_code(args: tuple[str, ...]) -> tuple[bool, str | None]:
    """(reads its input, why its arguments' SQL or options are code not seen)."""
    positionals: list[str] = []
    unseen: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-") and arg not in ("-", "--"):
            name = "-" + arg.lstrip("-")
            if name in SQLITE_VALUED:
                value = args[i + 1] if i + 1 < len(args) else ""
                if name == "-init" or (name == "-cmd" and _sql_is_code(value)):
                    unseen = f"sqlite3 {name} runs commands not seen"
                i += 2
                continue
            if name in ("-version", "-help"):
                return False, unseen
            i += 1
            continue
        positionals.append(arg)
        i += 1
    sql = positionals[1:]
    if any(_sql_is_code(s) for s in sql):
        unseen = "sqlite3's SQL holds a dot command or a function that runs or opens files"
    return not sql, unseen


def _sql_is_code(text: str) -> bool:
    return bool(_DOT_COMMAND.search(text) or _SHELL_FUNCTIONS.search(text))


_RANGE = r"(?:(?:\d+|\.|\$|%|'[a-z])(?:\s*,\s*(?:\d+|\.|\$|'[a-z]))?)?"
_PATTERN = r"/(?:[^/\\]|\\.)*/"
_HARMLESS_SET = (
    "more|ff|fileformat|fenc|fileencoding|et|expandtab|ts|tabstop|sw|shiftwidth|tw|textwidth"
    "|bomb|eol|fixeol|fixendofline|ft|filetype|nu|number|ic|ignorecase|paste|bin|binary|cp"
    "|compatible|wrap|list|hls|hlsearch|ws|wrapscan|magic|report|sts|softtabstop"
)
_HARMLESS_EX = re.compile(
    r"\s*:*\s*(?:"
    r"(?:wq|x|xit|q|quit|qa|qall|wqa|wqall|xa|xall|cq|w|write|wa|wall|up|update)!?"
    rf"|{_RANGE}\s*(?:d|de|del|delete|j|join|retab!?|>|<|le|left|ri|right|ce|center)"
    rf"|{_RANGE}\s*s(?:u|ub|ubstitute)?{_PATTERN}(?:[^/\\]|\\[^=])*/[gciIne&#lpr]*"
    rf"|{_RANGE}\s*(?:g|global|v|vglobal)!?{_PATTERN}\s*(?:d|delete)"
    rf"|set?\s+(?:(?:no|inv)?(?:{_HARMLESS_SET})(?:[+-^]?=[A-Za-z0-9_,-]*)?!?\s*)+"
    r"|noh|nohlsearch|\d+"
    r")\s*",
    re.DOTALL,
)


def harmless_ex(command: str) -> bool:
    """An Ex command (`-c`, `+`) that only edits the buffer, writes it back or quits: no `!`,
    no file named, no expression (`\\=`), no second command after a `|`."""
    if "|" in command.replace("\\|", "") or "\n" in command:
        return False
    return _HARMLESS_EX.fullmatch(command) is not None


_VERBOSE = re.compile(r"-V[0-9]*(.*)", re.S)


def editor_words(name: str, argv: tuple[str, ...]) -> tuple[str, ...]:
    """Vim's words with what is known harmless taken out: in Ex mode `-s` is silent mode, not
    a script read from a file (`-es`), and an Ex command that only edits or quits
    (`-c wq`, `+%s/a/b/g`) runs nothing; the rest is left for the table (`-c '!cmd'`: code)."""
    if name not in _VIM and name not in _EX:
        return argv
    ex = name in _EX or any(a in ("-e", "-E", "-es", "-Es") for a in argv[1:])
    out: list[str] = [argv[0]]
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            out.extend(argv[i:])
            break
        verbose = _VERBOSE.fullmatch(arg)
        if verbose is not None:
            # `-V[N][FILE]`: the digits are the level (as Vim reads them), the rest the file.
            out.append("-V" + verbose.group(1))
        elif ex and arg in ("-es", "-Es"):
            out.append(arg[:2])
        elif ex and arg == "-s":
            pass
        elif arg in ("-c", "--cmd") and i + 1 < len(argv) and harmless_ex(argv[i + 1]):
            i += 1
        elif not (arg.startswith("+") and harmless_ex(arg[1:] or "1")):
            out.append(arg)
        i += 1
    return tuple(out)


_WRITES_BACK = re.compile(r"\s*:*\s*(wq|x|xit|w|write|wa|wall|up|update|wqa|wqall|xa|xall)!?\s*$")


def editor_writes(argv: tuple[str, ...]) -> bool:
    """Whether an Ex command Vim is given writes its files back (`-c wq`, `+x`)."""
    commands = [a[1:] for a in argv[1:] if a.startswith("+")]
    commands += [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-c", "--cmd")]
    return any(_WRITES_BACK.match(c) for c in commands)
