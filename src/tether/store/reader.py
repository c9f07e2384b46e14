"""Reading a session file back, in two streaming passes: an index of every readable entry (its
uuid, parent and place; the content is not kept), then the records of the branch to resume,
read again one line at a time as the replay asks for them. Memory holds the index and what the
replay keeps, never the file.

Bad content never raises; it is skipped and said in `warnings`. Only a file that cannot be
read raises. Each line is read as an entry by `entry_lines`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.protocol import ConfigError
from tether.store.branch import REWIND_TYPE, Indexed, newest_branch, sortable
from tether.store.entry_lines import (
    carries_results,
    ends_turn,
    fields_at,
    fork_origin,
    reply_id,
    scan_entries,
)
from tether.store.entry_records import BadEntry, entry_record
from tether.store.hook_attachments import HookContext, spliced
from tether.store.records import AssistantRecord as AssistantRecord  # the store's exports
from tether.store.records import CompactionRecord as CompactionRecord
from tether.store.records import EstimateRecord as EstimateRecord
from tether.store.records import Record
from tether.store.records import SpendRecord as SpendRecord
from tether.store.records import UserRecord as UserRecord
from tether.store.records import WindowRecord as WindowRecord
from tether.store.sessions import SessionNotFound
from tether.store.writer import MESSAGE_TYPES

MAX_LINES_NAMED = 5  # a warning names at most this many line numbers, then counts the rest


@dataclass(frozen=True)
class LoadedSession:
    session_id: str
    path: Path
    title: str | None
    """The last title entry's."""
    forked_from: tuple[str, str | None] | None
    """(session id, entry uuid) this file was forked from, if it was."""
    last_uuid: str | None
    """The uuid of the branch's newest message: the parent of the next entry appended."""
    warnings: tuple[str, ...]
    """What of the file is not resumed, one sentence each: lines that cannot be read, lines
    written twice, gaps in the chain of entries, entries off the branch."""
    branch: tuple[Indexed, ...] = ()
    """The entries to replay, oldest first (see `records`)."""
    off_branch: tuple[Indexed, ...] = ()
    """The session's own entries not in `branch` (a rewind went back from them, `up_to` cut
    them): what their model calls cost stays spent (see `spent_records`)."""

    def records(self, problems: list[str] | None = None) -> Iterator[Record]:
        """The branch's records, oldest first, read from the file as they are asked for. An
        entry whose content is not valid is skipped, with a sentence added to `problems`."""
        for _, record in self.placed_records(problems):
            yield record

    def spent_records(self, problems: list[str] | None = None) -> Iterator[Record]:
        """The records of `off_branch`, oldest first: the conversation no longer holds them,
        but what they spent was spent."""
        off = dataclasses.replace(self, branch=self.off_branch)
        for _, record in off.placed_records(problems):
            yield record

    def tail_start(self, size: int) -> int:
        """The index in `branch` of the oldest entry within the newest `size` bytes of it: the
        part of the conversation a request of that size could still hold."""
        total = 0
        for index in range(len(self.branch) - 1, -1, -1):
            total += self.branch[index].size
            if total > size:
                return index + 1
        return 0

    def placed_records(self, problems: list[str] | None = None) -> Iterator[tuple[int, Record]]:
        """`records`, each with the index in `branch` of the entry it was read from (a
        prompt's hook context put back into it: `spliced`)."""
        return spliced(self._placed_entries(problems))

    def _placed_entries(
        self, problems: list[str] | None
    ) -> Iterator[tuple[int, Record | HookContext]]:
        try:
            with self.path.open("rb") as file:
                for place, indexed in enumerate(self.branch):
                    fields = fields_at(file, indexed.offset)
                    if fields is None:
                        _note(problems, f"line {indexed.line} changed since it was read; skipped")
                        continue
                    dropped: list[str] = []
                    try:
                        record = entry_record(fields, dropped)
                    except BadEntry as e:
                        _note(problems, f"line {indexed.line} skipped: {e}")
                        continue
                    for reason in dropped:
                        _note(problems, f"line {indexed.line}: {reason} left out")
                    if record is not None:
                        yield place, record
        except OSError as e:
            raise ConfigError(f"cannot read session file {self.path}: {e.strerror or e}") from e

    def at_last_turn_end(self) -> LoadedSession:
        """This session as it was when the model last finished a turn: what a process that
        started a turn since then (and still runs it) began from."""
        ends = [i for i, entry in enumerate(self.branch) if entry.ends_turn]
        if not ends or ends[-1] == len(self.branch) - 1:
            return self
        branch, cut = self.branch[: ends[-1] + 1], self.branch[ends[-1] + 1 :]
        return dataclasses.replace(
            self, branch=branch, off_branch=self.off_branch + cut, last_uuid=branch[-1].uuid
        )  # a reply

    def up_to(self, entry_uuid: str) -> LoadedSession:
        """This session as it was when the entry `entry_uuid` of its branch was written (the
        entries hanging off it kept): where `--resume-session-at` goes on from. Raises
        SessionNotFound when the branch has no such message."""
        place = next(
            (i for i, e in enumerate(self.branch) if e.uuid == entry_uuid and e.message), None
        )
        if place is None:
            raise SessionNotFound(
                f"no message {entry_uuid} in session {self.session_id} ({self.path}) to resume at"
            )
        end = place + 1
        while end < len(self.branch) and not self.branch[end].message:
            end += 1
        return dataclasses.replace(
            self,
            branch=self.branch[:end],
            off_branch=self.off_branch + self.branch[end:],
            last_uuid=entry_uuid,
        )

    def raw_lines(self) -> Iterator[dict[str, Any]]:
        """The branch's entries as written (every type), oldest first, for copying."""
        with self.path.open("rb") as file:
            for indexed in self.branch:
                fields = fields_at(file, indexed.offset)
                if fields is not None:
                    yield fields


def load_session(path: Path) -> LoadedSession:
    """Index a session file and choose the branch to resume. Raises SessionNotFound if it is
    missing, ConfigError if it cannot be read."""
    unreadable: list[int] = []
    replaced: list[int] = []
    duplicates: list[int] = []
    indexed: list[Indexed] = []
    sessions: list[str] = []  # each entry's sessionId, one string object per id
    names: dict[str, str] = {}
    replies: dict[str, str] = {}  # one string object per reply id, shared by its entries
    seen: dict[str, int] = {}  # each uuid to its place in `indexed`: a child's parent shares
    # its string, and a time is dropped once a message follows (only a leaf's chooses the branch)
    title: str | None = None
    forked_from: tuple[str, str | None] | None = None
    origins: set[str] = set()
    long_numbers: list[int] = []
    withdrawn: set[int] = set()  # places in `indexed` of messages taken back
    unanswered: set[int] = set()  # places of user messages after the newest reply: what a
    # `withdrawn` entry may name (a prompt, and what came with it, refused as too long)
    bad_withdrawals: list[int] = []
    rewind_ids: set[str] = set()  # entries saying the session went back to their parent
    for line, offset, size, entry in scan_entries(path, unreadable, replaced, long_numbers):
        fields = entry.fields
        uuid: str = fields["uuid"]
        if uuid in seen:
            duplicates.append(line)
            continue
        if fields["type"] == "withdrawn" and not _withdraw(
            indexed, seen, withdrawn, unanswered, fields
        ):
            bad_withdrawals.append(line)
        parent = fields.get("parentUuid")
        message = fields["type"] in MESSAGE_TYPES and not fields.get("isSidechain")
        if parent is not None and (place := seen.get(parent)) is not None:
            named = indexed[place]
            parent = named.uuid
            if named.timestamp and message:  # an entry hanging off it does not continue it
                indexed[place] = dataclasses.replace(named, timestamp="")
        if message:
            if fields["type"] == "user":
                unanswered.add(len(indexed))
            else:
                unanswered.clear()
        seen[uuid] = len(indexed)
        ends = ends_turn(fields)
        reply = reply_id(fields) if message else None
        indexed.append(
            Indexed.at(
                uuid,
                parent,
                sortable(fields["timestamp"]),
                offset=offset,
                line=line,
                size=size,
                ends_turn=ends,
                message=message,
                reply=None if reply is None else replies.setdefault(reply, reply),
                results=message and carries_results(fields),
            )
        )
        sessions.append(names.setdefault(fields["sessionId"], fields["sessionId"]))
        if fields["type"] == REWIND_TYPE and not fields.get("isSidechain"):
            rewind_ids.add(uuid)
        if fields["type"] == "title" and isinstance(fields.get("title"), str):
            title = fields["title"]
        elif fields["type"] == "fork" and (origin := fork_origin(fields)) is not None:
            forked_from = origin
            origins.add(origin[0])
    own = {path.stem, *origins}
    if own.intersection(names):  # else a file renamed by hand: every entry is its own
        indexed = [
            entry if sessions[i] in own else entry.foreign() for i, entry in enumerate(indexed)
        ]
    del seen, replies  # the index's strings are shared: this map is no longer needed to share them
    if withdrawn:
        indexed = _without(indexed, withdrawn)
        sessions = [named for i, named in enumerate(sessions) if i not in withdrawn]
    rewinds = [i for i, entry in enumerate(indexed) if entry.uuid in rewind_ids]
    branch = newest_branch(indexed, rewinds)
    warnings: list[str] = []
    if unreadable:
        warnings.append(f"{_lines(unreadable)} could not be read (torn or invalid); skipped")
    if replaced:
        warnings.append(
            f"{_lines(replaced)} held bytes that are not UTF-8; read with U+FFFD in their place"
        )
    if long_numbers:
        warnings.append(
            f"{_lines(long_numbers)} held a number of thousands of digits, too long to read; "
            "read as unknown, the rest of each entry kept"
        )
    if duplicates:
        warnings.append(f"{_lines(duplicates)} repeated an earlier entry; skipped")
    if bad_withdrawals:
        warnings.append(
            f"{_lines(bad_withdrawals)} took back an entry that is not a prompt waiting for "
            "its reply (only such a prompt can be refused as too long); ignored"
        )
    if branch.gaps:
        warnings.append(
            f"{_lines(list(branch.gaps))} followed an entry missing from the file; "
            "the conversation goes on from the entry before"
        )
    left_out = branch.left_out - branch.left_out_foreign - branch.left_out_rewound
    if left_out:
        warnings.append(
            f"{left_out} entr{'y' if left_out == 1 else 'ies'} not on the newest "
            "branch of the conversation (written by another process, or cut off) left out"
        )
    if branch.left_out_foreign:
        on_branch = {entry.uuid for entry in branch.entries}
        others = sorted(
            {sessions[i] for i, e in enumerate(indexed) if not e.own and e.uuid not in on_branch}
        )
        count = branch.left_out_foreign
        warnings.append(
            f"{count} entr{'y' if count == 1 else 'ies'} of {_sessions(others)} left out: "
            f"this file is session {path.stem}'s"
        )
    return LoadedSession(
        session_id=path.stem,
        path=path,
        title=title,
        forked_from=forked_from,
        last_uuid=branch.leaf
        or next((e.uuid for e in reversed(branch.entries) if e.message), None),
        warnings=tuple(f"session file {path}: {w}" for w in warnings),
        # The index's own entries, not copies without their links: a parent is its parent's
        # uuid string and a timestamp is kept by leaves only, so copies would cost a second
        # index at the peak and save nothing.
        branch=branch.entries,
        off_branch=_off_branch(indexed, branch.entries),
    )


def _off_branch(indexed: list[Indexed], branch: tuple[Indexed, ...]) -> tuple[Indexed, ...]:
    """The file's own entries that `branch` does not hold, in the file's order."""
    on_branch = {entry.uuid for entry in branch}
    return tuple(e for e in indexed if e.own and e.uuid not in on_branch)


def _withdraw(
    indexed: list[Indexed],
    seen: dict[str, int],
    withdrawn: set[int],
    unanswered: set[int],
    fields: dict[str, Any],
) -> bool:
    """A `withdrawn` entry (`SessionWriter.withdraw`): the user message it names, written
    before it, is marked to be left out, and the conversation is at the message before that
    again, as of the withdrawal's time (its newest leaf once more, unless a message follows).
    Only a user message no reply followed (in `unanswered`) can be taken back: one naming
    anything else (a reply, an answered prompt) is damage, and False is returned."""
    taken = fields.get("withdrawn")
    place = seen.get(taken) if isinstance(taken, str) else None
    if place is None or not indexed[place].message:
        return True  # names nothing this file holds before it: nothing to take back
    if place not in unanswered:
        return False
    unanswered.discard(place)
    withdrawn.add(place)
    parent = indexed[place].parent
    back = seen.get(parent) if parent is not None else None
    if back is not None and not indexed[back].timestamp:
        indexed[back] = dataclasses.replace(indexed[back], timestamp=sortable(fields["timestamp"]))
    return True


def _without(indexed: list[Indexed], withdrawn: set[int]) -> list[Indexed]:
    """`indexed` without the messages at the places in `withdrawn`: an entry that named one
    as its parent names that one's parent instead (through any number of them)."""
    instead: dict[str, str | None] = {indexed[i].uuid: indexed[i].parent for i in withdrawn}
    kept: list[Indexed] = []
    for index, entry in enumerate(indexed):
        if index in withdrawn:
            continue
        parent = entry.parent
        for _ in range(len(instead)):  # a loop of garbled parents ends too
            if parent is None or parent not in instead:
                break
            parent = instead[parent]
        kept.append(entry if parent is entry.parent else dataclasses.replace(entry, parent=parent))
    return kept


def _lines(numbers: list[int]) -> str:
    named = ", ".join(str(n) for n in numbers[:MAX_LINES_NAMED])
    more = len(numbers) - MAX_LINES_NAMED
    word = "line" if len(numbers) == 1 else "lines"
    return f"{word} {named}" + (f" and {more} more" if more > 0 else "")


def _sessions(ids: list[str]) -> str:
    named = ", ".join(ids[:MAX_LINES_NAMED])
    more = len(ids) - MAX_LINES_NAMED
    return f"session{'' if len(ids) == 1 else 's'} {named}" + (
        f" and {more} more" if more > 0 else ""
    )


def _note(problems: list[str] | None, text: str) -> None:
    if problems is not None:
        problems.append(text)
