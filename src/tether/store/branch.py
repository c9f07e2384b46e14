"""Which entries of a session file make the conversation to resume: the branch that ends at the
newest leaf, followed back through each entry's `parentUuid`, whatever the order of the lines.

A file may hold more than one branch (two processes appended to it, or an older tether forked
inside it) and may have lost lines (a disk error, an editor, a crash elsewhere). Following
parents rather than file order keeps one consistent branch; where a parent is missing the
walk goes on from the entry just before in the file (most often the lost line's own parent),
and says so.

Claude Code writes the calls of one reply that runs them in parallel as a branch each: one
entry per block, each call's result hanging off its own call's entry. The walk follows one of
them; the rest of the reply (the entries with its message id) and the results hanging off any
of them are put back after the reply's last entry on the walk, in the order they were written,
as Claude Code reads its own file back (`_with_parallel_calls`).

A file may also hold another session's entries (written into it by mistake, or mixed in by a
tool): the branch is chosen among the leaves of the file's own session (its id, and the ids
its fork entries name as where it came from) whenever it has any, however new the others are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")


_ENDS_TURN, _MESSAGE, _OWN, _RESULTS = 1, 2, 4, 8
_BITS = 48  # offsets and line lengths below 256 TiB


@dataclass(frozen=True, slots=True)
class Indexed:
    """Where one readable entry is, and what links it: all that is kept of it until replay
    (one per line of a file that may hold hundreds of thousands: slots, a parent that is the
    same string object as its parent's uuid, see `reader.load_session`, and the line's place
    and flags packed in one int each). Build one with `at`."""

    uuid: str
    parent: str | None
    timestamp: str
    place: int
    """Offset, length and line number in one int (see `at`)."""
    flags: int
    reply: str | None = None
    """An assistant entry's message id: the entries of one reply share it (see `at`)."""

    @classmethod
    def at(
        cls,
        uuid: str,
        parent: str | None,
        timestamp: str,
        *,
        offset: int,
        line: int,
        size: int,
        ends_turn: bool = False,
        message: bool = True,
        own: bool = True,
        reply: str | None = None,
        results: bool = False,
    ) -> Indexed:
        place = offset | size << _BITS | line << 2 * _BITS
        flags = ends_turn * _ENDS_TURN | message * _MESSAGE | own * _OWN | results * _RESULTS
        return cls(uuid, parent, timestamp, place, flags, reply)

    @property
    def offset(self) -> int:
        return self.place & ((1 << _BITS) - 1)

    @property
    def size(self) -> int:
        """The line's length in bytes: how much of the conversation it carries."""
        return (self.place >> _BITS) & ((1 << _BITS) - 1)

    @property
    def line(self) -> int:
        return self.place >> 2 * _BITS

    @property
    def ends_turn(self) -> bool:
        """A reply that calls no tool: the model's turn ended here."""
        return bool(self.flags & _ENDS_TURN)

    @property
    def message(self) -> bool:
        """A message of the conversation (see `writer.MESSAGE_TYPES`), not an entry hanging
        off one."""
        return bool(self.flags & _MESSAGE)

    @property
    def own(self) -> bool:
        """Written for the file's own session (its `sessionId` is one of the file's)."""
        return bool(self.flags & _OWN)

    @property
    def results(self) -> bool:
        """A user message carrying tool results."""
        return bool(self.flags & _RESULTS)

    def foreign(self) -> Indexed:
        """This entry, marked as another session's."""
        return Indexed(
            self.uuid, self.parent, self.timestamp, self.place, self.flags & ~_OWN, self.reply
        )


@dataclass(frozen=True)
class Branch:
    entries: tuple[Indexed, ...]
    """From the root to the newest leaf."""
    gaps: tuple[int, ...]
    """Line numbers of entries whose parent is not in the file: the walk bridged a gap there."""
    left_out: int
    """Readable entries not on the branch (another branch, or cut off by a gap)."""
    left_out_foreign: int = 0
    """Of those, entries of other sessions (see `Indexed.own`)."""
    left_out_rewound: int = 0
    """Of those, the session's own entries a rewind went back from (see `REWIND_TYPE`)."""
    leaf: str | None = None
    """The newest leaf message the walk started from: what the next entry goes on from, though
    a reply's results may be placed after it (see `_calls_before_results`)."""


REWIND_TYPE = "rewind"
"""An entry that hangs off the message a rewind went back to: the session goes on from there
(a resume, a fork, the picker), though nothing was sent after it, until a newer message."""


def newest_branch(entries: list[Indexed], rewinds: Sequence[int] = ()) -> Branch:
    """The branch of `entries` (readable ones, in file order, each uuid once) that ends at the
    newest leaf message (the latest timestamp among messages no later message goes on from,
    directly or through entries that are no message; the later line on a tie; the file's own
    session's leaves first), with the other entries that hang
    off its messages, each after its own."""
    if not entries:
        return Branch((), (), 0)
    position = {entry.uuid: index for index, entry in enumerate(entries)}
    parents = _continued(entries, position)
    leaves = [i for i, entry in enumerate(entries) if entry.uuid not in parents]
    # A cycle made of garbled ids leaves no leaf: start from the last line.
    leaves = [i for i in leaves if entries[i].message] or leaves or [len(entries) - 1]
    leaves = [i for i in leaves if entries[i].own] or leaves
    prefer_own = entries[leaves[0]].own
    newest = max(leaves, key=lambda i: (sortable(entries[i].timestamp), i))
    rewound_to = _rewound_to(entries, position, rewinds, newest)
    if rewound_to is not None:  # a rewind newer than every leaf: the session is back there
        newest = rewound_to
    walk: list[int] = []
    gaps: list[int] = []
    visited = bytearray(len(entries))  # a flag per entry: a set of indexes would take 30 times more
    current: int | None = newest
    while current is not None:
        visited[current] = 1
        walk.append(current)
        entry = entries[current]
        if entry.parent is None:
            break
        parent = position.get(entry.parent)
        if parent is None or visited[parent]:
            gaps.append(entry.line)
            parent = next(
                (
                    i
                    for i in range(current - 1, -1, -1)
                    if not visited[i] and (entries[i].own or not prefer_own)
                ),
                None,
            )
        current = parent
    walk.reverse()
    gaps.reverse()
    del visited
    leaf = entries[walk[-1]].uuid if entries[walk[-1]].message else None
    walk = _with_parallel_calls(entries, walk, own_only=prefer_own)
    ordered = _with_side_entries(entries, walk, position, own_only=prefer_own)
    kept = bytearray(len(entries))
    for i in ordered:
        kept[i] = 1
    foreign = sum(1 for i, e in enumerate(entries) if not e.own and not kept[i])
    rewound = _left_by_rewinds(entries, position, rewinds, kept)
    return Branch(
        tuple(entries[i] for i in ordered),
        tuple(gaps),
        len(entries) - len(ordered),
        foreign,
        rewound,
        leaf,
    )


def _rewound_to(
    entries: list[Indexed], position: dict[str, int], rewinds: Sequence[int], newest: int
) -> int | None:
    """The message the newest of the session's rewinds went back to, when that rewind is newer
    than the leaf `newest` (nothing was sent after it): None otherwise."""
    own = [r for r in rewinds if entries[r].own and entries[r].parent in position]
    if not own:
        return None
    last = max(own, key=lambda i: (sortable(entries[i].timestamp), i))
    if (sortable(entries[last].timestamp), last) < (sortable(entries[newest].timestamp), newest):
        return None
    return position[entries[last].parent or ""]


def _left_by_rewinds(
    entries: list[Indexed], position: dict[str, int], rewinds: Sequence[int], kept: bytearray
) -> int:
    """How many of the session's own entries off the branch a rewind went back from: those
    after a message a rewind went back to (they are no damage, and no other process's)."""
    points = {entries[r].parent for r in rewinds if entries[r].parent in position}
    if not points:
        return 0
    children: dict[str, list[int]] = {}
    for i, entry in enumerate(entries):
        if entry.parent is not None:
            children.setdefault(entry.parent, []).append(i)
    after: set[int] = set()
    pending = [i for p in points if p is not None for i in children.get(p, [])]
    while pending:
        i = pending.pop()
        if i not in after:
            after.add(i)
            pending.extend(children.get(entries[i].uuid, []))
    return sum(1 for i in after if entries[i].own and not kept[i])


def _continued(entries: list[Indexed], position: dict[str, int]) -> set[str | None]:
    """The uuids the conversation went on from: each message's parent, and, through entries
    that are no message (older files have them on the chain), their parents in turn. An entry
    that only hangs off a message (spend, compaction, meta) does not continue it: the prompt
    of a turn that failed after its compaction is still the newest leaf."""
    continued: set[str | None] = set()
    pending: list[str] = [e.parent for e in entries if e.message and e.parent is not None]
    while pending:
        uuid = pending.pop()
        if uuid in continued:
            continue
        continued.add(uuid)
        index = position.get(uuid)
        if index is None or entries[index].message:
            continue
        if (parent := entries[index].parent) is not None:
            pending.append(parent)
    return continued


def _with_parallel_calls(entries: list[Indexed], walk: list[int], *, own_only: bool) -> list[int]:
    """`walk` with the rest of each reply on it: the entries of the same reply (its message id)
    off the walk, then the results hanging off any of its entries off the walk, each in file
    order, right after the reply's last entry on the walk. Claude Code writes parallel calls
    so (see the module's docstring), and resumes its own file so."""
    on_walk = bytearray(len(entries))
    for i in walk:
        on_walk[i] = 1
    last_on_walk: dict[str, int] = {}  # reply id -> its last entry on the walk
    for i in walk:
        if (reply := entries[i].reply) is not None:
            last_on_walk[reply] = i
    if not last_on_walk:
        return walk
    members: dict[str, list[int]] = {}  # reply id -> its entries, in file order
    results: dict[str, list[int]] = {}  # uuid -> the result entries off the walk hanging off it
    for i, entry in enumerate(entries):
        if own_only and not entry.own:
            continue
        if entry.reply in last_on_walk:
            members.setdefault(entry.reply, []).append(i)
        elif entry.results and not on_walk[i] and entry.parent is not None:
            results.setdefault(entry.parent, []).append(i)
    after: dict[int, list[int]] = {}
    for reply, anchor in last_on_walk.items():
        group = members.get(reply, [])
        siblings = [i for i in group if not on_walk[i]]
        answers = sorted(i for m in group for i in results.get(entries[m].uuid, ()))
        if siblings or answers:
            after[anchor] = siblings + answers
    ordered: list[int] = []
    for i in walk:
        ordered.append(i)
        ordered.extend(after.get(i, ()))
    return _calls_before_results(entries, ordered)


def _calls_before_results(entries: list[Indexed], ordered: list[int]) -> list[int]:
    """`ordered` with each reply's entries together, then the results written between them:
    Claude Code runs a call as soon as its block has streamed, so a reply's entries alternate
    with results on one chain (call, result, call, result under one message id), and it sends
    them back as one reply followed by its results. Only results may stand between entries of
    one reply: anything else there (a prompt) means they are not one reply."""
    last: dict[str, int] = {}  # reply id -> the place of its last entry in `ordered`
    for place, i in enumerate(ordered):
        if (reply := entries[i].reply) is not None:
            last[reply] = place
    regrouped: list[int] = []
    place = 0
    while place < len(ordered):
        reply = entries[ordered[place]].reply
        end = last.get(reply, place) if reply is not None else place
        span = ordered[place : end + 1]
        between = [i for i in span if entries[i].reply != reply]
        if between and all(entries[i].results for i in between):
            regrouped.extend(i for i in span if entries[i].reply == reply)
            regrouped.extend(between)
            place = end + 1
        else:
            regrouped.append(ordered[place])
            place += 1
    return regrouped


def _with_side_entries(
    entries: list[Indexed], walk: list[int], position: dict[str, int], *, own_only: bool
) -> list[int]:
    """`walk` with each entry that is not a message and hangs off it (its parent on the walk,
    or none, or one lost from the file) placed right after that parent, in file order; with
    `own_only`, the file's own session's entries only."""
    on_walk = bytearray(len(entries))
    for i in walk:
        on_walk[i] = 1
    after: dict[int, list[int]] = {}  # walk index (-1: before it all) -> side entries
    for index, entry in enumerate(entries):
        if on_walk[index] or entry.message or (own_only and not entry.own):
            continue
        if entry.parent is None:
            anchor = -1
        elif (parent := position.get(entry.parent)) is None:  # lost: the message before it
            anchor = max((i for i in walk if i < index), default=-1)
        elif on_walk[parent]:
            anchor = parent
        else:
            continue  # it hangs off another branch
        after.setdefault(anchor, []).append(index)
    ordered = list(after.get(-1, []))
    for index in walk:
        ordered.append(index)
        ordered.extend(after.get(index, []))
    return ordered


_NONE = ""


def sortable(timestamp: str) -> str:
    """The timestamp as compared, "" for a garbled one: it must not make an old entry the
    newest (the index keeps this form, one shared empty string for every garbled one)."""
    return timestamp if _TIMESTAMP.fullmatch(timestamp) else _NONE
