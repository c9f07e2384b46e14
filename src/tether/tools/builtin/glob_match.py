"""Glob patterns as Glob understands them (gitignore style), compiled to regular expressions.

rg's own `--glob` cannot be used for matching: a glob given to rg overrides .gitignore, so
"**/*" would list ignored directories such as node_modules.
"""

from __future__ import annotations

import re
from collections.abc import Callable

GLOB_CHARS = frozenset("*?[{\\")


def compile_glob(pattern: str, *, anchored: bool) -> Callable[[str], bool]:
    """A test for paths relative to the search root ("src/a.py").

    A pattern without "/" matches the file name at any depth unless `anchored`; `*` and `?`
    stay within one path component, `**` spans any number of them, `[...]` and `{a,b}` work.
    """
    regex = re.compile(_translate(pattern), re.DOTALL)
    if anchored or "/" in pattern:
        return lambda path: regex.fullmatch(path) is not None
    return lambda path: regex.fullmatch(path.rpartition("/")[2]) is not None


def split_static_prefix(pattern: str) -> tuple[str, str]:
    """("src/app", "**/*.ts") for "src/app/**/*.ts": the directories before the first glob
    character, so that a search can start there, and the rest of the pattern."""
    parts = pattern.split("/")
    fixed = 0
    while fixed < len(parts) - 1 and not GLOB_CHARS.intersection(parts[fixed]):
        fixed += 1
    return "/".join(parts[:fixed]), "/".join(parts[fixed:])


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**", i):
            j = i + 2
            while j < n and pattern[j] == "*":
                j += 1
            whole_component = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if not whole_component:
                out.append("[^/]*")
            elif j == n:
                out.append(".*")
            else:
                out.append("(?:.*/)?")
                j += 1  # the "/" is part of the optional directories
            i = j
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[" and (end := _class_end(pattern, i)) > 0:
            out.append(_translate_class(pattern[i + 1 : end]))
            i = end
        elif c == "{" and (end := _brace_end(pattern, i)) > 0:
            options = _split_top_level(pattern[i + 1 : end])
            out.append("(?:" + "|".join(_translate(option) for option in options) + ")")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    """Index of the "]" closing the class opened at `start`, or -1."""
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1  # a leading "]" is a member, not the end
    return pattern.find("]", i)


def _translate_class(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    escaped = body.replace("\\", "\\\\").replace("[", "\\[")
    if escaped.startswith("]"):
        escaped = "\\" + escaped
    # A class never matches the separator, negated or not.
    return f"(?!/)[^{escaped}]" if negate else f"(?!/)[{escaped}]"


def _brace_end(pattern: str, start: int) -> int:
    depth = 0
    for i in range(start, len(pattern)):
        if pattern[i] == "{":
            depth += 1
        elif pattern[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_top_level(body: str) -> list[str]:
    options: list[str] = []
    depth = 0
    current: list[str] = []
    for c in body:
        if c == "," and depth == 0:
            options.append("".join(current))
            current = []
            continue
        depth += (c == "{") - (c == "}")
        current.append(c)
    options.append("".join(current))
    return options
