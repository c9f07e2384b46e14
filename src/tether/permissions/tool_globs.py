"""A glob a program expands itself (prettier's and eslint's quoted `'src/**/*.ts'`), as the
shell_words markers bash's own globs are judged by: `*` a `STAR`, `?` and a `[...]` class a
`ONE`, a `\\` escaping the next character, `{a,b}` and `{1..9}` the words they make (nested,
at most `MAX_WORDS`; past them, text not known). What such a word matches is listed below its
literal start (`literal_start`, `below_matcher`): `*` takes a dot first too (prettier's `dot:
true`, eslint's flat config), `**` any depth, `node_modules` and `.git` left out (`SKIPPED`);
when that is not known, the word is judged as bash's globs are with `dotglob` and `globstar`
on (`TOOL_OPTIONS`). A pattern starting with `!` excludes files: it reads nothing; an extglob
(`@(a|b)`) is text not known."""

from __future__ import annotations

import re
from itertools import pairwise

from tether.permissions.shell_globbing import GlobOptions
from tether.permissions.shell_words import DYN, ONE, STAR

TOOL_OPTIONS: GlobOptions = frozenset({"dotglob", "globstar"})
MARKS = (DYN, ONE, STAR)
MAX_WORDS = 64
"""The words one pattern's braces may make before it is taken as any text."""


def is_pattern(word: str) -> bool:
    """Whether a marked word holds a glob (not only braces that made names)."""
    return any(m in word for m in MARKS)


def has_magic(word: str) -> bool:
    """Whether the tool would take `word` as a pattern rather than a name (an escape too:
    `'\\.env'` is `.env` to it)."""
    return any(c in word for c in "*?[{\\") or _EXTGLOB.search(word) is not None


_EXTGLOB = re.compile(r"[@!+*?]\([^)]*\)|\([^)]*\|[^)]*\)")
"""picomatch's extglobs (`@(a|b)`, `!(x)`, `+(x)`) and groups with alternatives (`(a|b)`):
any text here."""


def tool_glob_words(pattern: str) -> tuple[str, ...]:
    """The marked words `pattern` stands for (none for an exclusion)."""
    if pattern.startswith("!"):
        return ()
    pattern = _EXTGLOB.sub(DYN, pattern)
    words = _braces(pattern)
    if words is None:
        return (_marked(pattern.replace("{", DYN).replace("}", DYN)),)
    return tuple(dict.fromkeys(_marked(w) for w in words))


def _braces(pattern: str) -> list[str] | None:
    """The words `{a,b}` makes of `pattern` (the first group, then the rest, recursively);
    None past `MAX_WORDS` or for a range."""
    depth, start = 0, -1
    commas: list[int] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
            if depth == 1:
                start, commas = i, []
        elif c == "," and depth == 1:
            commas.append(i)
        elif c == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                head, tail = pattern[:start], pattern[i + 1 :]
                if commas:
                    cuts = [start, *commas, i]
                    items = [pattern[a + 1 : b] for a, b in pairwise(cuts)]
                elif ".." in pattern[start:i]:
                    items = _range(pattern[start + 1 : i])
                    if items is None:
                        return None
                else:
                    i += 1
                    continue
                found: list[str] = []
                for item in items:
                    for word in _braces(head + item + tail) or [None]:
                        if word is None or len(found) >= MAX_WORDS:
                            return None
                        found.append(word)
                return found
        i += 1
    return [pattern]


def _range(text: str) -> list[str] | None:
    """`1..3` or `a..c` (a step after a second `..`): its items; None for another form or
    past `MAX_WORDS`."""
    bounds = text.split("..")
    if len(bounds) not in (2, 3):
        return None
    step = abs(int(bounds[2])) if len(bounds) == 3 and bounds[2].lstrip("-").isdigit() else 1
    if len(bounds) == 3 and (step == 0 or not bounds[2].lstrip("-").isdigit()):
        return None
    first, last = bounds[0], bounds[1]
    if all(b.lstrip("-").isdigit() for b in (first, last)):
        low, high = int(first), int(last)
        numbers = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        found = [str(n) for n in numbers]
    elif len(first) == len(last) == 1 and first.isalpha() and last.isalpha():
        low, high = ord(first), ord(last)
        codes = range(low, high + 1, step) if low <= high else range(low, high - 1, -step)
        found = [chr(c) for c in codes]
    else:
        return None
    return found if len(found) <= MAX_WORDS else None


def _marked(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(pattern[i + 1])
            i += 2
            continue
        if c == "[":
            close, known = _bracket_end(pattern, i)
            if close > i:
                out.append(ONE if known else DYN)
                i = close + 1
                continue
        out.append({"*": STAR, "?": ONE}.get(c, c))
        i += 1
    return "".join(out)


def _bracket_end(pattern: str, start: int) -> tuple[int, bool]:
    """Where the class opened at `start` ends (-1: it does not, a literal `[`) and whether its
    rules are known: picomatch reads a POSIX class (`[[:alpha:]]`) inside it, so the first `]`
    after `[:` does not close it; a collating element or equivalence class (`[[.a.]]`,
    `[[=a=]]`) is not known, so the class may match anything."""
    i = start + 2 if pattern[start + 1 : start + 2] in ("!", "^") else start + 1
    known = True
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            return i, known
        if c == "[" and pattern[i + 1 : i + 2] in (":", ".", "="):
            mark = pattern[i + 1]
            end = pattern.find(mark + "]", i + 2)
            if end > 0:
                known = known and mark == ":"
                i, first = end + 2, False
                continue
        i, first = i + 1, False
    return -1, known


SKIPPED = frozenset({"node_modules", ".git"})
"""Directories both tools leave out of what a pattern matches, unless it names them."""


def literal_start(word: str) -> tuple[str, str]:
    """A marked word as its leading directories with no glob (`src`, `.` for none) and the
    pattern below them."""
    segments = word.split("/")
    at = next((i for i, s in enumerate(segments) if any(m in s for m in MARKS)), len(segments))
    at = min(at, len(segments) - 1)
    head = "/".join(segments[:at])
    return (head or ("/" if word.startswith("/") else ".")), "/".join(segments[at:])


def below_matcher(pattern: str) -> re.Pattern[str] | None:
    """A marked pattern as a match of the paths below its start (relative, `/`-separated):
    `*` any name's text, a dot first too; `**` as a whole segment any depth, none too. None
    with text known only at run time."""
    if DYN in pattern:
        return None
    parts: list[str] = []
    for index, segment in enumerate(pattern.split("/")):
        last = index == len(pattern.split("/")) - 1
        if segment == STAR * 2:
            parts.append(".*" if last else "(?:.*/)?")
            continue
        text = "".join({STAR: "[^/]*", ONE: "[^/]"}.get(c, re.escape(c)) for c in segment)
        parts.append(text if last else text + "/")
    return re.compile("".join(parts))


def skipped(relative: str, word: str) -> bool:
    """Whether a match lies in a directory the tools leave out (`SKIPPED`) that `word` does
    not name."""
    return any(part in SKIPPED and part not in word for part in relative.split("/")[:-1])


def may_go_below(pattern: str, name: str) -> bool:
    """Whether the pattern may match something below `name` (a path relative to its start):
    through a symlink there, what it matches is not in the listing. A `**` does not go
    through one (the tools' walk does not follow symlinked directories); a name a segment
    matches is entered."""
    segments = pattern.split("/")
    depth = name.count("/") + 1
    if STAR * 2 in segments[:depth]:
        return False
    if len(segments) <= depth:
        return False
    head = below_matcher("/".join(segments[:depth]))
    return head is None or head.fullmatch(name) is not None
