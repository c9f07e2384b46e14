"""A path matched against a gitignore-style glob a segment at a time, in time linear in the
path.

One regular expression for the whole glob (`(?:.*/)?secrets/(?:.*/)?.*\\.key`) backtracks:
each `**` tries every `/` the rest could start after, so three of them against a 6 KB path of
repeated segments took over a minute (a Read call as much as a Bash one). Here a `**` stands
for any number of whole segments and the globs between two of them for a fixed number, so a
run of them is best placed at its first fit after the run before (a later place leaves less
room for the rest and matches nothing more). A segment is matched by glibc's fnmatch
(glibc_fnmatch.py), the one reading of a name pattern the engine has: a rule's `[[:alpha:]]`
or `[!.]` means what it means to find and grep, and a segment's match walks sets of
positions, never backtracking.
"""

from __future__ import annotations

from typing import Final

from tether.permissions import steps
from tether.permissions.glibc_fnmatch import NamePattern, Unjudged
from tether.slotted import Slotted

Segment = NamePattern | None
"""One segment's glob, or None for `**`: any number of segments."""

_ANY_SEGMENT = NamePattern("*")


class SegmentGlob(Slotted):
    """A glob as segment patterns (`parts`), with what `**` allows between them."""

    __slots__ = ("parts",)
    parts: Final[tuple[Segment, ...]]

    def __init__(self, parts: tuple[Segment, ...]) -> None:
        self.parts = parts

    @staticmethod
    def of(glob: str, *, floating: bool) -> SegmentGlob:
        """The glob below its anchor (no leading `/`); `floating` lets it start at any depth.
        It also matches anything below what it matches (gitignore: a directory's contents)."""
        parts: list[Segment] = [None] if floating else []
        if glob:
            pieces = _split_segments(glob)
            for index, piece in enumerate(pieces):
                if piece == "**":
                    # In the middle or at the start: any number of segments; at the end (`src/**`):
                    # at least one, whatever it holds.
                    parts.extend([None] if index < len(pieces) - 1 else [_ANY_SEGMENT, None])
                else:
                    parts.append(_segment_pattern(piece))
        else:
            parts.append(_ANY_SEGMENT)
        parts.append(None)  # and anything below
        return SegmentGlob(_collapse(parts))

    def fullmatch(self, path: str) -> bool:
        """Whether `path` (relative, normalised) matches."""
        segments = path.split("/")
        steps.spend(1 + len(segments) * len(self.parts) // 16)
        return _match(self.parts, segments)


def _collapse(parts: list[Segment]) -> tuple[Segment, ...]:
    out: list[Segment] = []
    for part in parts:
        if part is None and out and out[-1] is None:
            continue
        out.append(part)
    return tuple(out)


def _match(parts: tuple[Segment, ...], segments: list[str]) -> bool:
    runs: list[list[NamePattern]] = [[]]
    for part in parts:
        if part is None:
            runs.append([])
        else:
            runs[-1].append(part)
    if len(runs) == 1:
        return len(segments) == len(runs[0]) and _fits(runs[0], segments, 0)
    first, last = runs[0], runs[-1]
    end = len(segments) - len(last)
    if end < len(first) or not _fits(first, segments, 0) or not _fits(last, segments, end):
        return False
    position = len(first)
    for run in runs[1:-1]:
        while position + len(run) <= end and not _fits(run, segments, position):
            position += 1
        if position + len(run) > end:
            return False
        position += len(run)
    return True


def _fits(run: list[NamePattern], segments: list[str], at: int) -> bool:
    return all(pattern.fullmatch(segments[at + k]) for k, pattern in enumerate(run))


def _split_segments(glob: str) -> list[str]:
    """The glob's segments, split at each `/` outside a bracket class and not escaped."""
    out: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "\\" and i + 1 < len(glob):
            current.append(glob[i : i + 2])
            i += 2
            continue
        if c == "[" and (end := class_end(glob, i)) > 0:
            current.append(glob[i : end + 1])
            i = end + 1
            continue
        if c == "/":
            out.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    out.append("".join(current))
    return out


def _segment_pattern(glob: str) -> NamePattern:
    """One segment's glob, read as glibc's fnmatch reads a name pattern; raises ValueError
    when what it matches depends on the locale."""
    try:
        return NamePattern(glob)
    except Unjudged as e:
        raise ValueError(
            f"the bracket expression [{e}] in {glob!r} matches what the locale says"
        ) from None


def class_end(glob: str, start: int) -> int:
    """Index of the `]` closing the class opened at `start`, or -1. A `]` escaped (`\\]`) or
    ending a POSIX class, collating symbol or equivalence class inside (`[[:alpha:]]`,
    `[[.e.]]`, `[[=e=]]`) closes nothing, as in bash, glibc's fnmatch and git."""
    j = start + 1
    if j < len(glob) and glob[j] in "!^":
        j += 1
    if j < len(glob) and glob[j] == "]":
        j += 1
    while j < len(glob) and glob[j] != "]":
        if glob[j] == "\\":
            j += 1
        elif glob[j] == "[" and glob[j + 1 : j + 2] in (":", ".", "="):
            end = glob.find(glob[j + 1] + "]", j + 2)
            j = end + 1 if end >= 0 else j
        j += 1
    return j if j < len(glob) else -1
