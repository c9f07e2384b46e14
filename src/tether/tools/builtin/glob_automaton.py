"""Glob's patterns matched by an automaton, in time linear in the path.

A regular expression for a glob backtracks: `a*a*a*a*a*a*b` became `a[^/]*a[^/]*...b`, whose
every `[^/]*` tries every place the next piece could start, and `**/**/**/**/x` a chain of
`(?:.*/)?`: seconds to minutes on a path of a few hundred characters, with every further star
multiplying it. Here the pattern is a Thompson automaton (one state per character test, loops
for `*` and `**`, a fork per `{a,b}`), run over the path as the set of states it may be in,
so each character costs at most one step per state. Sets met once are numbered and their
moves remembered, so a pattern run over many paths mostly looks moves up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

Test = str | re.Pattern[str] | None
"""What one character must be: that character, a class's expression, or None for any but
`/` (`ANY` for any at all)."""

ANY = re.compile(".", re.DOTALL)
"""The test of any character, `/` too."""
_MAX_MOVES = 50_000
"""Remembered moves per pattern; past them, at the next path, the memory starts again (it only
saves time)."""


@dataclass
class Automaton:
    """States: a character test with its next state, or a fork to several (no test)."""

    tests: list[Test | bool] = field(default_factory=list[Test | bool])
    """Per state: its test, False for a fork, True for the accepting state (no moves)."""
    nexts: list[list[int]] = field(default_factory=list[list[int]])
    accept: int = -1
    start: frozenset[int] = frozenset()
    _ids: dict[frozenset[int], int] = field(default_factory=dict[frozenset[int], int])
    _sets: list[frozenset[int]] = field(default_factory=list[frozenset[int]])
    _moves: dict[tuple[int, str], int] = field(default_factory=dict[tuple[int, str], int])

    def state(self, test: Test | bool, nexts: list[int]) -> int:
        self.tests.append(test)
        self.nexts.append(nexts)
        return len(self.tests) - 1

    def fullmatch(self, text: str) -> bool:
        if len(self._moves) > _MAX_MOVES:
            self._moves.clear()
            self._ids.clear()
            self._sets.clear()
        current = self._id(self.start)
        for c in text:
            found = self._moves.get((current, c))
            if found is None:
                found = self._id(self._move(self._sets[current], c))
                self._moves[(current, c)] = found
            current = found
            if not self._sets[current]:
                return False
        return self.accept in self._sets[current]

    def closure(self, states: list[int]) -> frozenset[int]:
        """The states reachable through forks (forks themselves left out)."""
        seen: set[int] = set()
        found: set[int] = set()
        stack = list(states)
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            if self.tests[s] is False:
                stack.extend(self.nexts[s])
            else:
                found.add(s)
        return frozenset(found)

    def _move(self, states: frozenset[int], c: str) -> frozenset[int]:
        following: list[int] = []
        for s in states:
            if _passes(self.tests[s], c):
                following.extend(self.nexts[s])
        return self.closure(following)

    def _id(self, states: frozenset[int]) -> int:
        found = self._ids.get(states)
        if found is None:
            found = self._ids[states] = len(self._sets)
            self._sets.append(states)
        return found


def _passes(test: Test | bool, c: str) -> bool:
    if test is None:
        return c != "/"
    if isinstance(test, str):
        return test == c
    if isinstance(test, re.Pattern):
        return test.fullmatch(c) is not None
    return False
