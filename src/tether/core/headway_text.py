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

from tether.core.headway_look import content_hash

TOKEN = re.compile(r"\w+")
"""A word of a line."""

RANDOM_LETTERS = 40
"""A word longer than this is taken for a random token (a key, a blob, padding)."""

LINE_WORDS = 24
"""How many distinct words of a line are compared (a longer line is compared by its first)."""

OUTPUT_LINES = 2000
"""How many lines of one output are compared (tools cap what they show anyway)."""

KEPT = 1 << 16
"""How many line keys a generation holds: two generations are kept, so a turn's memory of
lines is bounded (some 6 MB) however much it is shown; the oldest are forgotten first."""

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

    def shows_new(self, text: str, asked: Iterable[str]) -> bool:
        """Whether `text` holds a line not seen before in the turn (the words of `asked`
        masked); every line of it is noted either way. Lines of one output do not make each
        other old: each is compared with what earlier calls showed."""
        masked = frozenset(asked)
        keys = [_keys(line, masked) for line in text.splitlines()[:OUTPUT_LINES]]
        new = any(shape and not any(self._seen(k) for k in shape) for shape in keys)
        for shape in keys:
            for key in shape:
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


def masked_words(text: str, asked: Iterable[str]) -> bytes:
    """`text`'s hash with the words of `asked` and random-looking tokens masked."""
    masked = frozenset(asked)

    def mask(match: re.Match[str]) -> str:
        return "#" if _noise(match.group(), masked) else match.group()

    return content_hash(TOKEN.sub(mask, text))


def _noise(word: str, masked: frozenset[str]) -> bool:
    """A word that says nothing of the workspace: one the call was given, or random-looking
    (a digit in it, or longer than any word)."""
    return word in masked or len(word) > RANDOM_LETTERS or any(c.isdigit() for c in word)


def _keys(line: str, masked: frozenset[str]) -> list[int]:
    """The line's word set as a hash, then the set less each of its words: empty when no word
    of substance is left."""
    distinct: list[int] = []
    for word in TOKEN.findall(line):
        if _noise(word, masked):
            continue
        h = hash(word)
        if h not in distinct:
            distinct.append(h)
            if len(distinct) >= LINE_WORDS:
                break
    if not distinct:
        return []
    whole = sum(distinct) & _MASK  # a set's hash: the sum of its words' (order aside)
    return [whole, *((whole - h) & _MASK for h in distinct)]
