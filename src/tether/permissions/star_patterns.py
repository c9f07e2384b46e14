"""Patterns where `*` stands for any text (rules' command patterns, WebFetch domains, agent
names), matched in linear time.

A regular expression `a.*b.*c` backtracks: each `.*` tries every place the next piece could
start, so `Bash(git * push * --force *)` against `git log` and 4,000 words `push` took 230
ms, and every further `*` multiplies it by the text's length. Pieces between stars need no
backtracking: the first must start the text, the last end it, and each piece between is best
placed at its leftmost occurrence after the one before (a later place leaves less room for the
rest and matches nothing more), so one `str.find` per piece decides.
"""

from __future__ import annotations

from typing import Final

from tether.slotted import Slotted


class StarPattern(Slotted):
    """Literal pieces, with any text between each two; `alternatives` more such patterns any
    of which may match instead (a Bash rule's optional ` *` tail)."""

    __slots__ = ("alternatives", "fold_case", "pieces")
    pieces: Final[tuple[str, ...]]
    alternatives: Final[tuple[StarPattern, ...]]
    fold_case: Final[bool]

    def __init__(
        self,
        pieces: tuple[str, ...],
        alternatives: tuple[StarPattern, ...] = (),
        fold_case: bool = False,
    ) -> None:
        self.pieces = pieces
        self.alternatives = alternatives
        self.fold_case = fold_case

    @staticmethod
    def of(pattern: str, *, fold_case: bool = False) -> StarPattern:
        """`pattern` with every `*` a wildcard (no escapes)."""
        text = pattern.lower() if fold_case else pattern
        return StarPattern(tuple(text.split("*")), fold_case=fold_case)

    def fullmatch(self, text: str) -> bool:
        """Whether the whole of `text` matches."""
        subject = text.lower() if self.fold_case else text
        if _matches(self.pieces, subject):
            return True
        return any(alternative.fullmatch(text) for alternative in self.alternatives)


def _matches(pieces: tuple[str, ...], text: str) -> bool:
    first, last = pieces[0], pieces[-1]
    if len(pieces) == 1:
        return text == first
    if len(text) < len(first) + len(last) or not text.startswith(first):
        return False
    end = len(text) - len(last)
    if not text.endswith(last):
        return False
    position = len(first)
    for piece in pieces[1:-1]:
        found = text.find(piece, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True
