"""Which lines of what a call showed are new substantive content for the turn
(`headway.Headway`): lines compared by the words they hold, not by the call that showed them.

A line is read as the set of its words, less those that carry nothing of the workspace: the
call's own input words (an echo of what it was asked), and random-looking tokens (any word with
a digit in it: a number, a hex id, a time; a word longer than `RANDOM_LETTERS`). What is left
is new when no line seen before in the turn holds the same words but for one: a subagent's
"checked: <a random word> is not used", a log line naming another user, twelve words of a small
set in a random order are each seen after the first; an issue's title, a commit message, a
failure's assertion, each with words of its own, are new. A line of one word is seen once any
line of one word was (a random word alone is not news; a word alone says little of a file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import islice

RANDOM_LETTERS = 40
"""A word longer than this is taken for a random token (a key, a blob, padding)."""

LINE_WORDS = 24
"""How many distinct words of a line are compared (a longer line is compared by its first)."""

OUTPUT_LINES = 2000
"""How many lines of one output are compared (tools cap what they show anyway)."""

KEPT = 1 << 16
"""How many line keys a generation holds: two generations are kept, so a turn's memory of
lines is bounded (some 6 MB) however much it is shown; the oldest are forgotten first."""

NOISE = re.compile(rf"(?<!\w)(?:\w*\d\w*|\w{{{RANDOM_LETTERS + 1},}})(?!\w)")
"""A random-looking word (a digit in it, or longer than `RANDOM_LETTERS`), matched whole: masked
in one pass of the regex engine rather than a Python call per word (a 400-line output was some
20000 calls per reply)."""

SUBSTANTIVE = re.compile(rf"(?<!\w)[^\W\d]{{1,{RANDOM_LETTERS}}}(?!\w)")
"""A word that is not random-looking (`NOISE`'s complement), matched whole: a line's words are
found in one pass, the noise left out by the regex engine."""

_SPLIT = re.compile(r"(\w+)")
"""Text split around its words, kept (`masked_words`)."""

_MASK = 0xFFFFFFFFFFFFFFFF


class SeenLines:
    """The lines a turn's calls showed, each as the hash of its word set and of that set less
    each one word (a line new but for one word is not new)."""

    __slots__ = ("_current", "_older")

    def __init__(self) -> None:
        self._current: set[int] = set()
        self._older: set[int] = set()

    def clear(self) -> None:
        self._current.clear()
        self._older.clear()

    def shows_new(self, lines: list[list[int]]) -> bool:
        """Whether an output whose `line_keys` are `lines` holds a line not seen before in the
        turn; every line of it is noted either way. Lines of one output do not make each other
        old: each is compared with what earlier calls showed."""
        new = any(shape and not any(self._seen(k) for k in shape) for shape in lines)
        keys = [key for shape in lines for key in shape]
        if len(self._current) + len(keys) < KEPT:
            self._current.update(keys)
        else:
            for key in keys:
                self._note(key)
        return new

    def _seen(self, key: int) -> bool:
        return key in self._current or key in self._older

    def _note(self, key: int) -> None:
        if key in self._current:
            return
        if len(self._current) >= KEPT:
            self._older, self._current = self._current, set()
        self._current.add(key)


def line_keys(text: str, asked: frozenset[str]) -> list[list[int]]:
    """What `SeenLines` compares of each line of `text` (`_keys`), the words of `asked`
    masked."""
    return [_keys(line, asked) for line in text.splitlines()[:OUTPUT_LINES]]


def masked_words(text: str, asked: Iterable[str]) -> str:
    """`text` with the words of `asked` and random-looking tokens masked."""
    masked = frozenset(asked)
    plain = NOISE.sub("#", text)
    if masked:
        # Split around the words: odd items are words, compared without a Match per word.
        parts = _SPLIT.split(plain)
        plain = "".join("#" if k % 2 and part in masked else part for k, part in enumerate(parts))
    return plain


def _keys(line: str, masked: frozenset[str]) -> list[int]:
    """The line's word set as a hash, then the set less each of its words: empty when no word
    of substance is left."""
    words = SUBSTANTIVE.findall(line)
    if masked:
        words = [word for word in words if word not in masked]
    distinct = list(map(hash, islice(dict.fromkeys(words), LINE_WORDS)))
    if not distinct:
        return []
    whole = sum(distinct) & _MASK  # a set's hash: the sum of its words' (order aside)
    return [whole, *((whole - h) & _MASK for h in distinct)]
