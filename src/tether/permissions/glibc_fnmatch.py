"""Name patterns as glibc's `fnmatch` reads them (find's `-name`/`-path`/`-iname`, grep's
`--include`/`--exclude`): Python's `fnmatch` knows neither backslash escapes (`'.\\env'` is
`.env`) nor `[^...]` negation, POSIX classes (`[[:alpha:]]`), collating symbols
(`[[.e.]]`) or equivalence classes (`[[=e=]]`), so a pattern the program matches to `.env`
looked to it like one that matches nothing.

Written here rather than called from libc through ctypes: the engine judges what GNU tools
will match on any machine tether runs on (musl's and macOS's fnmatch differ from glibc's),
the same way each time. What depends on the locale (an equivalence class of a letter, which
holds its accented forms; a collating symbol of several characters; an unknown class name)
cannot be judged exactly: `matches` says None, and its callers ask.

Flags as find and grep pass them: no FNM_PATHNAME (`*` matches `/` in `-path`), no
FNM_PERIOD (`*` matches a leading dot), FNM_CASEFOLD for find's `i` tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

_CLASSES: dict[str, Callable[[str], bool]] = {
    "alpha": str.isalpha,
    "digit": lambda c: "0" <= c <= "9",
    "alnum": lambda c: c.isalpha() or "0" <= c <= "9",
    "upper": str.isupper,
    "lower": str.islower,
    "space": lambda c: c in " \t\n\r\f\v",
    "blank": lambda c: c in " \t",
    "punct": lambda c: c.isprintable() and not c.isalnum() and not c.isspace(),
    "print": lambda c: c.isprintable(),
    "graph": lambda c: c.isprintable() and not c.isspace(),
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127,
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
}


class Unjudged(ValueError):
    """A pattern whose meaning depends on the locale the program runs in."""


@dataclass(frozen=True)
class _Bracket:
    negated: bool
    chars: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    classes: tuple[str, ...]
    symbols: frozenset[str] = frozenset()
    """Collating symbols (`[.e.]`), which glibc compares unfolded."""

    def holds(self, c: str, casefold: bool) -> bool:
        # FNM_CASEFOLD lowers the name's character and the pattern's; classes see it unfolded.
        fold: Callable[[str], str] = str.lower if casefold else str
        f = fold(c)
        found = (
            f in {fold(x) for x in self.chars}
            or c in self.symbols
            or any(fold(low) <= f <= fold(high) for low, high in self.ranges)
            or any(_CLASSES[name](c) for name in self.classes)
        )
        return found != self.negated


_Token = str | _Bracket | None
"""A literal character, a bracket expression, `?` (the empty string) or `*` (None)."""


def matches(name: str, pattern: str, casefold: bool = False) -> bool | None:
    """Whether glibc's fnmatch(pattern, name) matches (with FNM_CASEFOLD when `casefold`);
    None when that depends on the locale."""
    try:
        tokens = _tokens(pattern)
    except Unjudged:
        return None
    return _match(name, tokens, casefold)


class NamePattern:
    """A pattern read once and matched against many names (a rule's glob, one segment)."""

    __slots__ = ("_tokens",)

    def __init__(self, pattern: str) -> None:
        """Raises Unjudged when what the pattern matches depends on the locale."""
        self._tokens = _tokens(pattern)

    def fullmatch(self, name: str, casefold: bool = False) -> bool:
        """Whether glibc's fnmatch(pattern, name) matches."""
        return _match(name, self._tokens, casefold)


def is_plain(pattern: str) -> bool:
    """Whether the pattern is one name, matched only by itself."""
    return not any(c in pattern for c in "*?[\\")


def _match(name: str, tokens: list[_Token], casefold: bool) -> bool:
    # Positions of `name` reachable after each token: a set walk, no backtracking blow-up.
    reached = {0}
    for token in tokens:
        if token is None:
            start = min(reached, default=len(name) + 1)
            reached = set(range(start, len(name) + 1))
            continue
        reached = {at + 1 for at in reached if at < len(name) and _holds(token, name[at], casefold)}
        if not reached:
            return False
    return len(name) in reached


def _holds(token: str | _Bracket, c: str, casefold: bool) -> bool:
    if isinstance(token, _Bracket):
        return token.holds(c, casefold)
    if token == "":
        return True
    return token == c or (casefold and token.lower() == c.lower())


def _tokens(pattern: str) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            if not out or out[-1] is not None:
                out.append(None)
            i += 1
        elif c == "?":
            out.append("")
            i += 1
        elif c == "\\":
            if i + 1 == len(pattern):
                return [_NOTHING]  # glibc: a trailing backslash matches no name
            out.append(pattern[i + 1])
            i += 2
        elif c == "[":
            parsed = _bracket(pattern, i)
            if parsed is None:
                out.append("[")  # never closed: a `[` like any character
                i += 1
            else:
                out.append(parsed[0])
                i = parsed[1]
        else:
            out.append(c)
            i += 1
    return out


_NOTHING = _Bracket(False, frozenset(), (), ())
"""A token no character matches."""


def _bracket(pattern: str, start: int) -> tuple[_Bracket, int] | None:
    """The bracket expression opened at `start` and where it ends; None when never closed."""
    i = start + 1
    negated = i < len(pattern) and pattern[i] in "!^"
    i += negated
    chars: set[str] = set()
    symbols: set[str] = set()
    ranges: list[tuple[str, str]] = []
    classes: list[str] = []
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            found = _Bracket(
                negated, frozenset(chars), tuple(ranges), tuple(classes), frozenset(symbols)
            )
            return found, i + 1
        first = False
        if c == "[" and pattern[i + 1 : i + 2] in (":", "=", "."):
            kind = pattern[i + 1]
            end = pattern.find(kind + "]", i + 2)
            if end < 0:
                return None
            inner = pattern[i + 2 : end]
            i = end + 2
            if kind == ":":
                if inner not in _CLASSES:
                    raise Unjudged(inner)
                classes.append(inner)
                continue
            if len(inner) != 1 or (kind == "=" and inner.isalpha()):
                raise Unjudged(inner)  # a named symbol, or a letter with its accented forms
            if pattern[i : i + 1] == "-":
                raise Unjudged(inner)  # glibc reads a range from one its own way
            (symbols if kind == "." else chars).add(inner)
            continue
        elif c == "\\":
            if i + 1 == len(pattern):
                return None
            element = pattern[i + 1]
            i += 2
        else:
            element = c
            i += 1
        if pattern[i : i + 1] == "-" and pattern[i + 1 : i + 2] not in ("]", ""):
            high, i = _range_end(pattern, i + 1)
            if not (element.isascii() and high.isascii()):
                raise Unjudged(element + high)  # ordered by the locale's collation
            if element <= high:
                ranges.append((element, high))
            continue
        chars.add(element)
    return None


def _range_end(pattern: str, i: int) -> tuple[str, int]:
    if pattern[i] == "\\" and i + 1 < len(pattern):
        return pattern[i + 1], i + 2
    if pattern[i] == "[" and pattern[i + 1 : i + 2] in ("=", ".", ":"):
        raise Unjudged(pattern[i:])  # glibc reads a range to one its own way
    return pattern[i], i + 1
