"""Whether an awk program plainly only reads its input and prints: no `system()`, no
`getline` (which reads files or runs commands), no output redirection or pipe (`print >
"f"`, `print | "cmd"`), no extensions, no indirect calls (gawk's `@f()`, where f may hold
"system"), no environment (`ENVIRON`) and no change to the files it reads (`ARGV`, or
`SYMTAB` naming it).

Words are looked for anywhere in the text, strings included: a false alarm only asks. The
operators `|` and `>` need the text lexed, strings and regular expressions left out, since
`/a|b/` and `$1 > 5 { print }` are plain reading; a `/` is taken for a regular expression only
where awk cannot take it for a division.
"""

from __future__ import annotations

import re

_WORDS = re.compile(
    r"system|getline|ENVIRON|PROCINFO|ARGV|ARGC|SYMTAB|@load|@include|@namespace|/inet"
)
"""`SYMTAB["AR" "GV"]` is ARGV by a name put together (gawk): it changes the files read."""
_REGEX_MAY_FOLLOW = frozenset("(,~!{};&|\n")
_PRINT = re.compile(r"printf?\b")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def awk_problem(program: str) -> str | None:
    """Why the program may do more than read and print, or None when it plainly does not."""
    found = _WORDS.search(program)
    if found is not None:
        return f"the awk program uses `{found.group()}`"
    return _operators(program)


def _operators(text: str) -> str | None:
    i = 0
    previous = "\n"  # the last significant character
    in_print = False
    depth = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i = _past_string(text, i)
            previous = '"'
            continue
        if c == "/" and previous in _REGEX_MAY_FOLLOW:
            i = _past_regex(text, i)
            previous = "/"
            continue
        if c == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if c == "\\" and text[i + 1 : i + 2] == "\n":
            i += 2
            continue
        if c == "@":
            # gawk: `@f(...)` calls the function whose name f holds (`f = "sys" "tem"`), and
            # `@load`, `@include` bring in code; any `@` outside strings and regular
            # expressions is one of them (`@/re/` too, which is harmless, and asked).
            return "the awk program calls a function by a name it holds, or uses a directive (`@`)"
        # awk's names are ASCII (`é` is not a letter to it): from i, not a copy of the
        # rest, so linear.
        word = _NAME.match(text, i) if c.isascii() else None
        if word is not None:
            name = word.group()
            if _PRINT.fullmatch(name):
                in_print, depth = True, 0
            # After a keyword that takes an expression a regular expression may follow.
            previous = "(" if name in ("print", "printf", "return", "in", "case") else "a"
            i += len(name)
            continue
        if c == "|":
            if text[i + 1 : i + 2] == "|":
                i += 2
                previous = "|"
                continue
            return "the awk program pipes to or from a command (`|`)"
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c in ";\n{}":
            in_print = False
        elif c == ">" and in_print and depth <= 0:
            return "the awk program redirects its output to a file (`>`)"
        if not c.isspace():
            previous = c
        i += 1
    return None


def _past_string(text: str, i: int) -> int:
    i += 1
    while i < len(text) and text[i] not in ('"', "\n"):
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _past_regex(text: str, i: int) -> int:
    # A `/` inside brackets ends it here even where awk reads on: what follows is then
    # looked at as code, which can only ask more.
    i += 1
    while i < len(text) and text[i] not in ("/", "\n"):
        i += 2 if text[i] == "\\" else 1
    return i + 1
