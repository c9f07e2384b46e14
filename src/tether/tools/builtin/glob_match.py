"""Glob patterns as Glob understands them (gitignore style), compiled to automata that match in
linear time (glob_automaton).

rg's own `--glob` cannot be used for matching: a glob given to rg overrides .gitignore, so
"**/*" would list ignored directories such as node_modules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

from tether.tools.builtin.glob_automaton import ANY, Automaton

GLOB_CHARS = frozenset("*?[{\\")


def compile_glob(pattern: str, *, anchored: bool) -> Callable[[str], bool]:
    """A test for paths relative to the search root ("src/a.py"), in time linear in the path
    (glob_automaton).

    A pattern without "/" matches the file name at any depth unless `anchored`; `*` and `?`
    stay within one path component, `**` spans any number of them, `[...]` and `{a,b}` work.
    """
    automaton = Automaton()
    automaton.accept = automaton.state(True, [])
    automaton.start = automaton.closure([_build(automaton, _parse(pattern), automaton.accept)])
    if anchored or "/" in pattern:
        return automaton.fullmatch
    return lambda path: automaton.fullmatch(path.rpartition("/")[2])


def split_static_prefix(pattern: str) -> tuple[str, str]:
    """("src/app", "**/*.ts") for "src/app/**/*.ts": the directories before the first glob
    character, so that a search can start there, and the rest of the pattern."""
    parts = pattern.split("/")
    fixed = 0
    while fixed < len(parts) - 1 and not GLOB_CHARS.intersection(parts[fixed]):
        fixed += 1
    return "/".join(parts[:fixed]), "/".join(parts[fixed:])


class _Wild(Enum):
    STAR = "[^/]*"
    ONE = "[^/]"
    ANYTHING = ".*"
    DIRECTORIES = "(?:.*/)?"
    """Nothing, or any text ending with `/`."""


_Item = str | re.Pattern[str] | _Wild | list["list[_Item]"]
"""A literal character, a class, a wildcard, or `{a,b}`'s alternatives."""


def _parse(pattern: str) -> list[_Item]:
    out: list[_Item] = []
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
                out.append(_Wild.STAR)
            elif j == n:
                out.append(_Wild.ANYTHING)
            else:
                out.append(_Wild.DIRECTORIES)
                j += 1  # the "/" is part of the optional directories
            i = j
            continue
        if c == "*":
            out.append(_Wild.STAR)
        elif c == "?":
            out.append(_Wild.ONE)
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(pattern[i])
        elif c == "[" and (end := _class_end(pattern, i)) > 0:
            out.append(re.compile(_translate_class(pattern[i + 1 : end]), re.DOTALL))
            i = end
        elif c == "{" and (end := _brace_end(pattern, i)) > 0:
            out.append([_parse(option) for option in _split_top_level(pattern[i + 1 : end])])
            i = end
        else:
            out.append(c)
        i += 1
    return out


def _build(automaton: Automaton, items: list[_Item], after: int) -> int:
    """The states for `items`, built from the last back, ending at `after`; returns the
    first."""
    following = after
    for item in reversed(items):
        following = _item_states(automaton, item, following)
    return following


def _item_states(automaton: Automaton, item: _Item, after: int) -> int:
    if isinstance(item, list):
        return automaton.state(False, [_build(automaton, option, after) for option in item])
    if not isinstance(item, _Wild):
        return automaton.state(item, [after])
    if item is _Wild.ONE:
        return automaton.state(None, [after])
    if item is _Wild.DIRECTORIES:
        loop = automaton.state(False, [])
        automaton.nexts[loop] += [automaton.state(ANY, [loop]), automaton.state("/", [after])]
        return automaton.state(False, [after, loop])
    loop = automaton.state(False, [])
    step = automaton.state(None if item is _Wild.STAR else ANY, [loop])
    automaton.nexts[loop] += [step, after]
    return loop


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
