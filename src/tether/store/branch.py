"""Which entries of a session file make the conversation to resume: the branch that ends at the
newest leaf, followed back through each entry's `parentUuid`, whatever the order of the lines.

A file may hold more than one branch (two processes appended to it, or an older tether forked
inside it) and may have lost lines (a disk error, an editor, a crash elsewhere). Following
parents rather than file order keeps one consistent branch; where a parent is missing the
walk goes on from the entry just before in the file (most often the lost line's own parent),
and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")


@dataclass(frozen=True)
class Indexed:
    """Where one readable entry is, and what links it: all that is kept of it until replay."""

    uuid: str
    parent: str | None
    offset: int
    line: int
    timestamp: str
    ends_turn: bool = False
    """A reply that calls no tool: the model's turn ended here."""


@dataclass(frozen=True)
class Branch:
    entries: tuple[Indexed, ...]
    """From the root to the newest leaf."""
    gaps: tuple[int, ...]
    """Line numbers of entries whose parent is not in the file: the walk bridged a gap there."""
    left_out: int
    """Readable entries not on the branch (another branch, or cut off by a gap)."""


def newest_branch(entries: list[Indexed]) -> Branch:
    """The branch of `entries` (readable ones, in file order, each uuid once) that ends at the
    newest leaf: the latest timestamp among entries nobody names as parent, the later line on
    a tie."""
    if not entries:
        return Branch((), (), 0)
    position = {entry.uuid: index for index, entry in enumerate(entries)}
    parents = {entry.parent for entry in entries}
    leaves = [i for i, entry in enumerate(entries) if entry.uuid not in parents]
    if not leaves:  # every entry is someone's parent: a cycle made of garbled ids
        leaves = [len(entries) - 1]
    newest = max(leaves, key=lambda i: (_sortable(entries[i].timestamp), i))
    chain: list[Indexed] = []
    gaps: list[int] = []
    visited: set[int] = set()
    current: int | None = newest
    while current is not None:
        visited.add(current)
        entry = entries[current]
        chain.append(entry)
        if entry.parent is None:
            break
        parent = position.get(entry.parent)
        if parent is None or parent in visited:
            gaps.append(entry.line)
            parent = next((i for i in range(current - 1, -1, -1) if i not in visited), None)
        current = parent
    chain.reverse()
    gaps.reverse()
    return Branch(tuple(chain), tuple(gaps), len(entries) - len(chain))


def _sortable(timestamp: str) -> str:
    # A garbled timestamp must not make an old entry the newest.
    return timestamp if _TIMESTAMP.fullmatch(timestamp) else ""
