"""Hook matchers, read the way Claude Code reads them.

Empty or `*` matches everything. A value made only of name characters and `|` (`Bash`,
`Edit|Write`) is a list of exact names. Anything else is a regular expression, searched anywhere in
the subject (unanchored, like JavaScript's `RegExp.test`): `mcp__.*`, `^Notebook`.
"""

from __future__ import annotations

import re
from functools import lru_cache

_NAME_LIST = re.compile(r"[\w\- |]+")


def matcher_problem(matcher: str) -> str | None:
    """Why `matcher` cannot be used (an invalid regular expression), or None."""
    if _is_everything(matcher) or _NAME_LIST.fullmatch(matcher):
        return None
    try:
        re.compile(matcher)
    except re.error as e:
        return f"invalid regular expression {matcher!r}: {e}"
    return None


def matches(matcher: str, subject: str | None) -> bool:
    """Whether a hook with `matcher` runs for `subject`; a None subject (nothing to compare)
    only runs match-everything hooks."""
    if _is_everything(matcher):
        return True
    if subject is None:
        return False
    if _NAME_LIST.fullmatch(matcher):
        return subject in _names(matcher)
    return _compiled(matcher).search(subject) is not None


def exact_names(matcher: str) -> tuple[str, ...] | None:
    """The names of a name-list matcher (`Edit|Write`), or None for match-all and regexes."""
    if _is_everything(matcher) or not _NAME_LIST.fullmatch(matcher):
        return None
    return tuple(name.strip() for name in matcher.split("|") if name.strip())


def file_names(matcher: str) -> tuple[str, ...]:
    """A FileChanged matcher's file names: literal, `|`-separated (`.envrc|.env`), never a
    regular expression, as Claude Code reads them."""
    return tuple(name.strip() for name in matcher.split("|") if name.strip())


def _is_everything(matcher: str) -> bool:
    return matcher.strip() in ("", "*")


@lru_cache(maxsize=256)
def _names(matcher: str) -> frozenset[str]:
    return frozenset(exact_names(matcher) or ())


@lru_cache(maxsize=256)
def _compiled(matcher: str) -> re.Pattern[str]:
    return re.compile(matcher)
