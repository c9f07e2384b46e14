"""The embedded task store: one SQLite file per project (`.tether/tasks.db`), every team in it.

WAL, so readers (a board being watched) never wait for a writer; every change in one
`BEGIN IMMEDIATE` transaction, so two processes claiming at once are serialised by SQLite's
write lock and never take the same task. A task is its JSON (`Task.stored`) beside the
columns the claim order and the lease reaper search by. The outbox (`task_outbox`) is a table
of the same file, written in the change's transaction.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tether.protocol.team_events import TaskChanged
from tether.store import task_graph as graph
from tether.store.graph_store import GraphStore, with_blocks
from tether.store.sqlite_file import SqliteFile
from tether.store.task_graph import BoardTx
from tether.store.task_outbox import OutboxEvent
from tether.store.task_records import (
    DEFAULT_LEASE_S,
    DEFAULT_MAX_ATTEMPTS,
    PRIORITY_RANK,
    Claim,
    Task,
)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    team TEXT NOT NULL, id INTEGER NOT NULL, data TEXT NOT NULL,
    status TEXT NOT NULL, rank INTEGER NOT NULL, owner TEXT, ready INTEGER NOT NULL,
    lease_expires_at REAL, PRIMARY KEY (team, id));
CREATE INDEX IF NOT EXISTS tasks_claim_order ON tasks (team, ready, rank, id);
CREATE INDEX IF NOT EXISTS tasks_leases ON tasks (team, lease_expires_at)
    WHERE lease_expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS deps (
    team TEXT NOT NULL, task INTEGER NOT NULL, dep INTEGER NOT NULL,
    PRIMARY KEY (team, task, dep));
CREATE INDEX IF NOT EXISTS deps_by_dep ON deps (team, dep);
CREATE TABLE IF NOT EXISTS counters (
    team TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (team, name));
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, team TEXT NOT NULL, id TEXT NOT NULL UNIQUE,
    event TEXT NOT NULL, writer TEXT NOT NULL, made_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS outbox_by_team ON outbox (team, seq);
"""

T = TypeVar("T")

CHANGE_POLL_S = 0.02
"""How often `wait_change` reads the outbox's last sequence number."""


class SqliteTaskStore(GraphStore):
    """A team's board in a SQLite file (created with its folder when missing)."""

    def __init__(self, path: Path, team: str) -> None:
        self.path, self.team, self.url = path, team, str(path)
        self._file = SqliteFile(
            path, what="task store", schema=_SCHEMA, schema_key="schema", version=SCHEMA_VERSION
        )
        self._start_outbox()

    def _transact(self, step: Callable[[BoardTx], T]) -> T:
        try:
            with self._file.transaction() as db:
                return step(_SqliteTx(db, self.team, time.time()))
        except sqlite3.DatabaseError as e:
            raise self._file.unavailable(e) from None

    def pending_events(self, limit: int = 1000) -> list[OutboxEvent]:
        try:
            with self._file.reading() as db:
                now = time.time()
                rows = db.execute(
                    "SELECT event, writer, made_at FROM outbox WHERE team = ? ORDER BY seq LIMIT ?",
                    (self.team, limit),
                ).fetchall()
        except sqlite3.DatabaseError as e:
            raise self._file.unavailable(e) from None
        return [
            OutboxEvent(TaskChanged.model_validate_json(event), writer, now - made)
            for event, writer, made in rows
        ]

    def change_mark(self) -> str:
        try:
            with self._file.reading() as db:
                row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").fetchone()
        except sqlite3.DatabaseError as e:
            raise self._file.unavailable(e) from None
        return str(row[0] if row else 0)

    def wait_change(self, mark: str, timeout_s: float) -> bool:
        """A file has nothing to block on: its outbox's last sequence number is read again
        every `CHANGE_POLL_S` (a local read, no server)."""
        deadline = time.monotonic() + timeout_s
        while self.change_mark() == mark:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(CHANGE_POLL_S, left))
        return True

    def list(self) -> list[Task]:
        def every(tx: BoardTx) -> list[Task]:
            assert isinstance(tx, _SqliteTx)
            return [with_blocks(tx, t) for t in tx.all()]

        return self._run(every)

    def claim_next(
        self,
        owner: str,
        *,
        lease_s: float = DEFAULT_LEASE_S,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        reaped: list[Task] | None = None,
    ) -> Claim | None:
        expired: list[Task] = []

        def step(tx: BoardTx) -> Claim | None:
            assert isinstance(tx, _SqliteTx)
            expired[:] = self._reaped(tx, tx.reap(max_attempts))  # a retry reaps afresh
            task_id = tx.first_ready(owner)
            if task_id is None:
                return None
            claim = graph.claim_task(tx, task_id, owner, lease_s)
            self._told(tx, "claimed", claim.task)
            return claim

        claim = self._run(step)
        if reaped is not None:  # recorded: the transaction committed
            reaped.extend(expired)
        return claim

    def reap_expired(self, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[Task]:
        def step(tx: BoardTx) -> list[Task]:
            assert isinstance(tx, _SqliteTx)
            return self._reaped(tx, tx.reap(max_attempts))

        return self._run(step)

    def close(self) -> None:
        self._flush_at_close()
        self._file.close()


class _SqliteTx:
    """`BoardTx` over a connection inside `BEGIN IMMEDIATE`."""

    def __init__(self, db: sqlite3.Connection, team: str, now: float) -> None:
        self._db, self.team, self.now = db, team, now
        self.events: list[TaskChanged] = []

    def put_event(self, event: TaskChanged, writer: str) -> None:
        self._db.execute(
            "INSERT INTO outbox (team, id, event, writer, made_at) VALUES (?, ?, ?, ?, ?)",
            (self.team, event.event_id, event.model_dump_json(), writer, self.now),
        )
        self.events.append(event)

    def drop_events(self, ids: list[str]) -> None:
        self._db.executemany("DELETE FROM outbox WHERE id = ?", [(i,) for i in ids])

    def get(self, task_id: str) -> Task | None:
        if not task_id.isdigit():
            return None
        row = self._db.execute(
            "SELECT data FROM tasks WHERE team = ? AND id = ?", (self.team, int(task_id))
        ).fetchone()
        return Task.model_validate_json(row[0]) if row is not None else None

    def all(self) -> list[Task]:
        rows = self._db.execute("SELECT data FROM tasks WHERE team = ? ORDER BY id", (self.team,))
        return [Task.model_validate_json(r[0]) for r in rows]

    def dependents(self, task_id: str) -> list[str]:
        rows = self._db.execute(
            "SELECT task FROM deps WHERE team = ? AND dep = ? ORDER BY task",
            (self.team, int(task_id)),
        )
        return [str(r[0]) for r in rows]

    def save(self, task: Task, *, ready: bool) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO tasks VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.team,
                task.seq,
                json.dumps(task.stored(), ensure_ascii=False),
                task.status,
                PRIORITY_RANK[task.priority],
                task.owner,
                int(ready),
                task.lease_expires_at,
            ),
        )
        self._db.executemany(
            "INSERT OR IGNORE INTO deps VALUES (?, ?, ?)",
            [(self.team, task.seq, int(dep)) for dep in task.depends_on],
        )

    def delete(self, task: Task) -> None:
        self._db.execute("DELETE FROM tasks WHERE team = ? AND id = ?", (self.team, task.seq))
        self._db.execute("DELETE FROM deps WHERE team = ? AND task = ?", (self.team, task.seq))

    def next_id(self) -> str:
        return str(self._count("task"))

    def next_fence(self) -> int:
        return self._count("fence")

    def _count(self, name: str) -> int:
        row = self._db.execute(
            "INSERT INTO counters VALUES (?, ?, 1) ON CONFLICT (team, name) "
            "DO UPDATE SET value = value + 1 RETURNING value",
            (self.team, name),
        ).fetchone()
        return int(row[0])

    def first_ready(self, owner: str) -> str | None:
        row = self._db.execute(
            "SELECT id FROM tasks WHERE team = ? AND ready = 1 AND status = 'pending' "
            "AND (owner IS NULL OR owner = ?) ORDER BY rank, id LIMIT 1",
            (self.team, owner),
        ).fetchone()
        return str(row[0]) if row is not None else None

    def reap(self, max_attempts: int) -> list[Task]:
        rows = self._db.execute(
            "SELECT id FROM tasks WHERE team = ? AND lease_expires_at < ? AND status = "
            "'in_progress'",
            (self.team, self.now),
        ).fetchall()
        reaped = [graph.reap(self, str(r[0]), max_attempts) for r in rows]
        return [t for t in reaped if t is not None]
