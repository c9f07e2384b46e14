"""The embedded mailboxes and roster: tables in the project's SQLite store file, beside the
task board (`.tether/tasks.db`), every team in it.

A message is a row of its recipient's mailbox until it is acknowledged (then deleted).
`receive` hands rows out in one `BEGIN IMMEDIATE` transaction, stamping each with its consumer
and the time (`held_since`): a row held longer than the caller's `reclaim_after_s` goes to the
next consumer that asks, its `attempts` counted. SQLite cannot wait for a row, so a blocking
`receive` polls, but cheaply: between tries it reads `PRAGMA data_version` (which changes
when another connection commits, and takes no lock), backing off from 1 ms to 50 ms.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tether.store.legacy_marks import sqlite_drop_old_marks, sqlite_old_mark
from tether.store.mailbox import (
    DEFAULT_RECLAIM_AFTER_S,
    Delivery,
    MailboxError,
    Member,
    MemberBusy,
    Message,
    TeamRecord,
)
from tether.store.mailbox_post import insert_once, mailbox_file
from tether.store.mailbox_records import (
    changed_member,
    check_member,
    check_team_record,
    dumps,
    read_stored,
    stored,
    team_exists,
    unknown_member,
)

T = TypeVar("T")

POLL_FIRST_S = 0.001
POLL_MAX_S = 0.05
"""The longest a waiting `receive` sleeps between looks: a message waits at most this long."""
RECHECK_S = 1.0
"""A waiting `receive` tries again at least this often, for messages whose hold ran out."""


class SqliteMailboxStore:
    """A team's mailboxes and roster in a SQLite file (created with its folder when missing):
    both a `MailboxStore` and a `RosterStore`."""

    def __init__(self, path: Path, team: str) -> None:
        self.path, self.team, self.url = path, team, str(path)
        self._file = mailbox_file(path)

    def _run(self, step: Callable[[sqlite3.Connection], T]) -> T:
        try:
            with self._file.transaction() as db:
                return step(db)
        except sqlite3.DatabaseError as e:
            raise self._file.unavailable(e) from None

    def _read(self, step: Callable[[sqlite3.Connection], T]) -> T:
        """A read of one statement: WAL gives it a consistent snapshot without the write
        lock, so a board being watched never waits for senders."""
        try:
            with self._file.reading() as db:
                return step(db)
        except sqlite3.DatabaseError as e:
            raise self._file.unavailable(e) from None

    # -- mailboxes

    def send(self, message: Message) -> Message:
        data = stored(message)
        self._run(
            lambda db: insert_once(
                db, self.team, message.sender, message.id, message.recipient, data
            )
        )
        return message

    def posted(self, sender: str, message_id: str) -> bool:
        return self._read(
            lambda db: (
                db.execute(
                    "SELECT 1 FROM posted_by WHERE team = ? AND id = ? AND sender = ?",
                    (self.team, message_id, sender),
                ).fetchone()
                is not None
                or sqlite_old_mark(db, self.team, sender, message_id)
            )
        )

    def send_as(self, message: Message, sender_changes: Mapping[str, Any]) -> Message:
        data = stored(message)

        def send(db: sqlite3.Connection) -> None:
            if not insert_once(db, self.team, message.sender, message.id, message.recipient, data):
                return  # posted already, with the sender's record as it was then
            row = db.execute(
                "SELECT data FROM members WHERE team = ? AND name = ?",
                (self.team, message.sender),
            ).fetchone()
            if row is not None:
                member = changed_member(Member.model_validate_json(row[0]), sender_changes)
                db.execute(
                    "UPDATE members SET data = ? WHERE team = ? AND name = ?",
                    (dumps(member), self.team, message.sender),
                )

        self._run(send)
        return message

    def receive(
        self,
        member: str,
        consumer: str,
        *,
        max_count: int = 16,
        block_s: float = 0.0,
        reclaim_after_s: float = DEFAULT_RECLAIM_AFTER_S,
    ) -> list[Delivery]:
        if max_count < 1:
            raise MailboxError(f"max_count must be at least 1, not {max_count}")
        deadline = time.monotonic() + block_s
        delay = POLL_FIRST_S
        while True:
            version = self._data_version()
            taken = self._run(
                lambda db: self._take(db, member, consumer, max_count, reclaim_after_s)
            )
            if taken:
                return taken
            tried_at = time.monotonic()
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                time.sleep(min(delay, remaining))
                delay = min(delay * 2, POLL_MAX_S)
                if self._data_version() != version or time.monotonic() - tried_at >= RECHECK_S:
                    break

    def _data_version(self) -> int:
        return self._read(lambda db: int(db.execute("PRAGMA data_version").fetchone()[0]))

    def _take(
        self,
        db: sqlite3.Connection,
        member: str,
        consumer: str,
        max_count: int,
        reclaim_after_s: float,
    ) -> list[Delivery]:
        now = time.time()
        rows = db.execute(
            # As bytes: a row's text that is not UTF-8 would fail the whole read as text.
            "SELECT seq, CAST(data AS BLOB), attempts FROM mailbox WHERE team = ? AND member = ? "
            "AND (held_since IS NULL OR held_since <= ?) ORDER BY seq LIMIT ?",
            (self.team, member, now - reclaim_after_s, max_count),
        ).fetchall()
        db.executemany(
            "UPDATE mailbox SET consumer = ?, held_since = ?, attempts = attempts + 1 "
            "WHERE seq = ?",
            [(consumer, now, seq) for seq, _, _ in rows],
        )
        return [
            Delivery(
                message=read_stored(data, receipt=str(seq), member=member),
                receipt=str(seq),
                attempt=attempts + 1,
            )
            for seq, data, attempts in rows
        ]

    def ack(self, member: str, receipts: Sequence[str]) -> None:
        bad = [r for r in receipts if not r.isdigit()]
        if bad:
            raise MailboxError(f"not a receipt of this store: {', '.join(map(repr, bad))}")
        self._run(
            lambda db: db.executemany(
                "DELETE FROM mailbox WHERE team = ? AND member = ? AND seq = ?",
                [(self.team, member, int(r)) for r in receipts],
            )
        )

    def unread(self, member: str) -> int:
        def count(db: sqlite3.Connection) -> int:
            row = db.execute(
                "SELECT count(*) FROM mailbox WHERE team = ? AND member = ?", (self.team, member)
            ).fetchone()
            return int(row[0])

        return self._read(count)

    # -- roster

    def create_team(self, record: TeamRecord) -> TeamRecord:
        check_team_record(self.team, record)

        def create(db: sqlite3.Connection) -> None:
            row = db.execute("SELECT data FROM teams WHERE team = ?", (self.team,)).fetchone()
            if row is not None:
                raise team_exists(self.team, TeamRecord.model_validate_json(row[0]))
            db.execute("INSERT INTO teams VALUES (?, ?)", (self.team, dumps(record)))

        self._run(create)
        return record

    def delete_team(self) -> None:
        def delete(db: sqlite3.Connection) -> None:
            for table in ("teams", "members", "mailbox", "posted_by"):
                db.execute(f"DELETE FROM {table} WHERE team = ?", (self.team,))
            sqlite_drop_old_marks(db, self.team)

        self._run(delete)

    def team_record(self) -> TeamRecord | None:
        def read(db: sqlite3.Connection) -> TeamRecord | None:
            row = db.execute("SELECT data FROM teams WHERE team = ?", (self.team,)).fetchone()
            return None if row is None else TeamRecord.model_validate_json(row[0])

        return self._read(read)

    def put_member(self, member: Member) -> Member:
        check_member(member)

        def put(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO members VALUES (?, ?, (SELECT coalesce(max(joined), 0) + 1 FROM "
                "members WHERE team = ?), ?) ON CONFLICT (team, name) DO UPDATE SET "
                "data = excluded.data",
                (self.team, member.name, self.team, dumps(member)),
            )

        self._run(put)
        return member

    def update_member(
        self,
        name: str,
        changes: Mapping[str, Any],
        *,
        unless: Callable[[Member], str | None] | None = None,
    ) -> Member:
        def update(db: sqlite3.Connection) -> Member:
            row = db.execute(
                "SELECT data FROM members WHERE team = ? AND name = ?", (self.team, name)
            ).fetchone()
            if row is None:
                names = db.execute(
                    "SELECT name FROM members WHERE team = ? ORDER BY joined", (self.team,)
                )
                raise unknown_member(self.team, name, [n for (n,) in names])
            current = Member.model_validate_json(row[0])
            busy = unless(current) if unless is not None else None
            if busy is not None:
                raise MemberBusy(busy)
            member = changed_member(current, changes)
            db.execute(
                "UPDATE members SET data = ? WHERE team = ? AND name = ?",
                (dumps(member), self.team, name),
            )
            return member

        return self._run(update)

    def members(self) -> list[Member]:
        def read(db: sqlite3.Connection) -> list[Member]:
            rows = db.execute(
                "SELECT data FROM members WHERE team = ? ORDER BY joined", (self.team,)
            )
            return [Member.model_validate_json(data) for (data,) in rows]

        return self._read(read)

    def wait_members(
        self, until: Callable[[list[Member]], bool], timeout_s: float, *, recheck_s: float
    ) -> bool:
        deadline = time.monotonic() + timeout_s
        while True:
            version = self._data_version()
            if until(self.members()):
                return True
            read_at, delay = time.monotonic(), POLL_FIRST_S
            while self._data_version() == version and time.monotonic() - read_at < recheck_s:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
                delay = min(delay * 2, POLL_MAX_S)

    def close(self) -> None:
        self._file.close()
