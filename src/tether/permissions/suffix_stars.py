"""A star pattern matched against every suffix of a text in one pass, right to left.

A command's every tail is a rule text (bash_rules.later_commands): matched one by one, the
work grew with the square of the command. Every tail ends where the command ends, so the text
is read once from its end: `ReverseStar` is told the text a chunk at a time, each chunk the
one before what it has seen, and says at any moment whether what it has seen so far, the
suffix, matches. In the reversed text the pattern's last piece must start it, each piece
before is placed at its first occurrence after the one placed last (the earliest place leaves
the most room, as in star_patterns.py), and the first piece must end it; a piece may span
chunks, so the last characters seen that could begin one are kept, never more.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tether.permissions.star_patterns import StarPattern


@dataclass
class _Pieces:
    """One alternative of a pattern, its pieces reversed, and how far it has been placed."""

    first: str
    """The pattern's last piece, reversed: what the reversed text must start with."""
    middle: tuple[str, ...]
    """The pieces between, reversed, in the order they are placed."""
    last: str | None
    """The pattern's first piece, reversed (None: no star, the text is the one piece)."""
    placed: int = 0
    """Middle pieces placed so far."""
    placed_end: int = 0
    """Where, in the reversed text, the last piece placed ends."""
    pending: str = ""
    """The reversed text since `placed_end`, at most a piece's length less one of it."""


@dataclass
class ReverseStar:
    """`pattern` (with its alternatives) against a text given from its end."""

    pattern: StarPattern
    _alternatives: list[_Pieces] = field(default_factory=list[_Pieces])
    _seen: int = 0
    _start: str = ""
    """The first characters of the reversed text, as many as a first piece needs."""
    _end: str = ""
    """The last characters of the reversed text (the suffix's first), as many as needed."""
    _keep: int = 0

    def __post_init__(self) -> None:
        for alternative in (self.pattern, *self.pattern.alternatives):
            pieces = [p[::-1] for p in reversed(alternative.pieces)]
            if len(pieces) == 1:
                self._alternatives.append(_Pieces(pieces[0], (), None))
            else:
                self._alternatives.append(_Pieces(pieces[0], tuple(pieces[1:-1]), pieces[-1]))
        for alternative in self._alternatives:
            _place(alternative, "", 0)  # empty pieces fit anywhere
        patterns = (self.pattern, *self.pattern.alternatives)
        self._keep = max(len(piece) for pattern in patterns for piece in pattern.pieces)

    def copy(self) -> ReverseStar:
        twin = ReverseStar(self.pattern)
        twin._alternatives = [
            _Pieces(a.first, a.middle, a.last, a.placed, a.placed_end, a.pending)
            for a in self._alternatives
        ]
        twin._seen, twin._start, twin._end = self._seen, self._start, self._end
        return twin

    def prepend(self, text: str) -> None:
        """`text` comes before what has been seen."""
        chunk = text[::-1].lower() if self.pattern.fold_case else text[::-1]
        before = self._seen
        self._seen += len(chunk)
        if len(self._start) < self._keep:
            self._start = (self._start + chunk)[: self._keep + 1]
        self._end = (self._end + chunk)[-(self._keep + 1) :]
        for alternative in self._alternatives:
            _place(alternative, chunk, before)

    def matches(self) -> bool:
        """Whether the text seen so far (a suffix of the whole) matches the pattern."""
        return any(self._matches(a) for a in self._alternatives)

    def _matches(self, alternative: _Pieces) -> bool:
        first, last = alternative.first, alternative.last
        if last is None:
            return self._seen == len(first) and self._start[: self._seen] == first
        if not self._start.startswith(first) or not self._end.endswith(last):
            return False
        if alternative.placed < len(alternative.middle):
            return False
        floor = alternative.placed_end if alternative.middle else len(first)
        return floor + len(last) <= self._seen


def _place(alternative: _Pieces, chunk: str, before: int) -> None:
    """Place the middle pieces that `chunk`, seen after `before` characters, holds."""
    if alternative.last is None or alternative.placed == len(alternative.middle):
        return
    # The region where the next piece may go: after the first piece, after the last placed.
    floor = max(alternative.placed_end, len(alternative.first))
    region_start = before - len(alternative.pending)
    region = alternative.pending + chunk
    if region_start < floor:
        if floor > before + len(chunk):
            alternative.pending = ""
            return
        region, region_start = region[floor - region_start :], floor
    while alternative.placed < len(alternative.middle):
        piece = alternative.middle[alternative.placed]
        found = region.find(piece)
        if found < 0:
            keep = len(piece) - 1
            alternative.pending = region[len(region) - keep :] if keep else ""
            return
        cut = found + len(piece)
        alternative.placed += 1
        alternative.placed_end = region_start + cut
        region, region_start = region[cut:], region_start + cut
    alternative.pending = ""
