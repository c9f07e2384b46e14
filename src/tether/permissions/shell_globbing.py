"""The shell options that widen what a glob matches, as a command may set them, and its words
as path patterns under them.

bash's defaults keep `*` from matching a leading dot, `**` from crossing `/` and a glob from
vanishing; `cat *` is judged by that. The same command may first change them: `shopt -s
dotglob` (`*` reads `.env`), `globstar` (`**` recursive), `nocaseglob` (`*.ENV`), `nullglob`
(a glob that matches nothing is dropped: `find nomatch* -delete` is `find -delete`), or start
a shell with them (`bash -O dotglob -c 'cat *'`). Options are tracked in the order the words
run, and only grow: a change inside a subshell or a branch may apply or not, and a command in
a function's body, a loop or a trap (`Invocation.late`) may run after every later change, so
it is judged with all of them. An option name that is not a literal (`shopt -s $opt`), a
sourced file and a shell's start-up files may set any: all of them then.

Not tracked, because none widens what the engine already assumes: `set -f`/`noglob` (a glob
taken as written names a file its pattern also matches, or a bracket expression's own text),
`failglob` (the command fails instead), `set -B` (brace expansion is always taken as unknown
text), `extglob` (tree-sitter reads none of its patterns: the command is one the parser
cannot read, shell.py). `GLOBIGNORE` (which turns dotglob on), `BASHOPTS` and `SHELLOPTS`
are variables that change what runs (dangerous_variables.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tether.permissions.paths import ANY, ONE, ONE_NODOT, STAR, STAR_NODOT, Token
from tether.permissions.script import Invocation
from tether.permissions.shell_words import DYN, HOME, is_literal, program_name
from tether.permissions.shell_words import ONE as ONE_MARK
from tether.permissions.shell_words import STAR as STAR_MARK
from tether.permissions.shells import SHELLS, startup_files

GlobOptions = frozenset[str]
DEFAULT: GlobOptions = frozenset()
EVERY: GlobOptions = frozenset({"dotglob", "globstar", "nocaseglob", "nullglob"})
"""The options that widen what a glob stands for."""
_SOURCES = frozenset({"source", "."})
DEFERRING = frozenset({"trap"})
"""Programs whose code runs later, after the commands that follow them (a trap's)."""


@dataclass
class GlobState:
    """The widening options that may be on where a command's words are expanded."""

    now: GlobOptions = DEFAULT
    """On at the command being judged: everything turned on before it in the text."""
    anywhere: GlobOptions = DEFAULT
    """Turned on anywhere in the command line: what a late command may run under."""

    def foresee(self, invocations: Iterable[Invocation]) -> None:
        """Take in what `invocations` (and what they run) may turn on, before judging them."""
        for inv in invocations:
            self.anywhere |= turned_on(inv)
            self.foresee(inv.inner)

    def enter(self, inv: Invocation, *, late: bool) -> GlobOptions:
        """The options `inv`'s words are expanded under, once what it turns on for itself
        and for the shells it starts is counted (`bash -O dotglob -c ...`)."""
        found = turned_on(inv)
        self.now |= found
        self.anywhere |= found
        return self.anywhere if late else self.now


def turned_on(inv: Invocation) -> GlobOptions:
    """The widening options `inv` may turn on: `shopt -s NAME`, a shell's `-O NAME`, and
    every one for code not seen (a sourced file, start-up files)."""
    if not inv.argv or not is_literal(inv.argv[0]):
        return DEFAULT
    name = program_name(inv.argv[0])
    if name == "shopt":
        return _shopt(inv.argv[1:])
    if name in _SOURCES:
        return EVERY
    if name in SHELLS:
        return EVERY if startup_files(inv.argv) else _shell_start(inv.argv[1:])
    return DEFAULT


def _shopt(args: tuple[str, ...]) -> GlobOptions:
    letters = ""
    index = 0
    while index < len(args) and args[index].startswith("-") and is_literal(args[index]):
        if args[index] == "--":
            index += 1
            break
        letters += args[index][1:]
        index += 1
    names = args[index:]
    if not all(map(is_literal, args)):
        return EVERY  # `shopt -s $opt`, `shopt $flag dotglob`
    if "s" not in letters or "o" in letters:
        return DEFAULT  # a query, a print, `-u`; `-o` names `set`'s options, none widening
    return EVERY.intersection(names)


def _shell_start(args: tuple[str, ...]) -> GlobOptions:
    """`bash -O NAME ...` (in a bundle too: `-cO NAME`); `+O` turns one off."""
    found: set[str] = set()
    index = 0
    while index < len(args):
        arg = args[index]
        if not is_literal(arg):
            return EVERY
        if arg == "--" or arg[:1] not in "-+" or arg.startswith("--") or len(arg) < 2:
            break
        takes_value = "o" in arg[1:] or "O" in arg[1:]
        if arg[0] == "-" and "O" in arg[1:] and index + 1 < len(args):
            if not is_literal(args[index + 1]):
                return EVERY
            found.add(args[index + 1])
        index += 2 if takes_value else 1
    return EVERY.intersection(found)


def glob_tokens(path: str, options: GlobOptions) -> tuple[Token, ...]:
    """`path` (a word with shell_words markers) as glob tokens (paths.py) under `options`:
    with dotglob a glob may start a name with a dot; with globstar a whole `**` segment is any
    number of directories (hidden ones too: wider than bash, which skips them without
    dotglob); with nocaseglob a letter in a segment holding a glob is either case (one
    character that is not `.` or `/`: wider, and bash matches a segment without a glob as
    written)."""
    dot = "dotglob" in options
    folds = "nocaseglob" in options
    globstar = "globstar" in options
    out: list[Token] = []
    joined = False
    for index, segment in enumerate(path.split("/")):
        if index and not joined:
            out.append("/")
        joined = False
        if globstar and segment == STAR_MARK * 2:
            if out and out[-1] == "/":
                out.pop()  # `x/**` is `x` too (bash lists `x/`)
            out.append(ANY)
            joined = True  # and `**/` may stand for no directory at all
            continue
        fold = folds and any(mark in segment for mark in (STAR_MARK, ONE_MARK))
        for position, c in enumerate(segment):
            start = position == 0 and not dot
            if c == DYN:
                out.append(ANY)
            elif c == STAR_MARK:
                out.append(STAR_NODOT if start else STAR)
            elif c == ONE_MARK:
                out.append(ONE_NODOT if start else ONE)
            elif fold and c.lower() != c.upper():
                out.append(ONE_NODOT)
            else:
                out.append("~" if c == HOME else c)
    return tuple(out)
