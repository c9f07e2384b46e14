"""The ledger's SQLite file: shared by every process of the user (sessions, subagents, workers).

WAL, so `tether cost` reads while sessions write; each write one `BEGIN IMMEDIATE` transaction,
so processes writing at once are serialised by SQLite's write lock (waiting up to
`BUSY_TIMEOUT_MS`); migrations are an ordered list, the version kept in `PRAGMA user_version`,
and a file written by a newer tether is refused rather than misread. The opening (mode 0600
as the event log, WAL, the busy timeout, a read-only way in) is `tether.sqlite_files`'.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Generator
from pathlib import Path

from tether.sqlite_files import (
    FileIdentity,
    ForkSafeDb,
    is_busy,
    is_damage,
    open_read_only,
    open_shared,
)

BUSY_TIMEOUT_MS = 10_000
LEDGER_FILE = "ledger.db"


class LedgerError(Exception):
    """The ledger cannot be opened, read or written; the message says which file and why;
    `busy`: because another process holds its lock (passing)."""

    def __init__(self, message: str, *, busy: bool = False) -> None:
        super().__init__(message)
        self.busy = busy


def _first(db: sqlite3.Connection) -> None:
    # One statement at a time: `executescript` would commit the migration's transaction.
    _statements(
        db,
        """
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, model TEXT NOT NULL,
            cwd TEXT NOT NULL, task_id TEXT);
        CREATE TABLE model_calls (
            id INTEGER PRIMARY KEY, at TEXT NOT NULL, session_id TEXT NOT NULL,
            agent_id TEXT NOT NULL, task_id TEXT, model TEXT NOT NULL,
            input_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL,
            cache_write_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
            input_cost REAL NOT NULL, cache_read_cost REAL NOT NULL,
            cache_write_cost REAL NOT NULL, output_cost REAL NOT NULL, cost REAL NOT NULL);
        CREATE INDEX model_calls_at ON model_calls (at);
        CREATE INDEX model_calls_session ON model_calls (session_id);
        CREATE TABLE tool_calls (
            session_id TEXT NOT NULL, call_id TEXT NOT NULL, at TEXT NOT NULL,
            agent_id TEXT NOT NULL, task_id TEXT, tool TEXT NOT NULL, model TEXT NOT NULL,
            is_error INTEGER NOT NULL DEFAULT 0, duration_ms INTEGER NOT NULL DEFAULT 0,
            output_tokens REAL NOT NULL, output_cost REAL NOT NULL,
            input_tokens INTEGER NOT NULL DEFAULT 0, cache_read_tokens INTEGER NOT NULL DEFAULT 0,
            cache_write_tokens INTEGER NOT NULL DEFAULT 0, input_cost REAL NOT NULL DEFAULT 0,
            cache_read_cost REAL NOT NULL DEFAULT 0, cache_write_cost REAL NOT NULL DEFAULT 0,
            PRIMARY KEY (session_id, agent_id, call_id));
        CREATE INDEX tool_calls_at ON tool_calls (at);
        CREATE TABLE subagents (
            session_id TEXT NOT NULL, agent_id TEXT NOT NULL, call_id TEXT NOT NULL,
            agent_type TEXT NOT NULL, started_at TEXT NOT NULL, task_id TEXT,
            status TEXT, duration_ms INTEGER, PRIMARY KEY (session_id, agent_id));
        """,
    )


def _statements(db: sqlite3.Connection, script: str) -> None:
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _whose_work(db: sqlite3.Connection) -> None:
    """The team and the project a model call was made for: task ids and member names are
    only unique within one team of one project (`tether cost --by task|agent` keys by all
    three)."""
    for table in ("sessions", "model_calls"):
        db.execute(f"ALTER TABLE {table} ADD COLUMN team TEXT")
        db.execute(f"ALTER TABLE {table} ADD COLUMN project TEXT")


def _cache_reads_source(db: sqlite3.Connection) -> None:
    """Whether a model call's cache reads are the endpoint's count (`reported`) or the
    ledger's estimate, the endpoint having said nothing of them (`estimated`: `meter.py`;
    `unreported` since `_possible_saving`)."""
    db.execute("ALTER TABLE model_calls ADD COLUMN cache_reads TEXT NOT NULL DEFAULT 'reported'")


def _possible_saving(db: sqlite3.Connection) -> None:
    """What an automatic prompt cache may have saved on a call whose endpoint said nothing of
    its cache reads (`unreported`: priced as plain input; the saving estimated, in no cost)."""
    db.execute("ALTER TABLE model_calls ADD COLUMN possible_saving REAL NOT NULL DEFAULT 0")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _first,
    _whose_work,
    _cache_reads_source,
    _possible_saving,
)
"""Applied in order; `PRAGMA user_version` is how many a file has had."""


def ledger_path(home: Path) -> Path:
    """The ledger under tether's home (`$TETHER_HOME`)."""
    return home / LEDGER_FILE


class LedgerFile:
    """An open ledger at `path` (created with its folder when missing), migrated; or, with
    `read_only`, an existing one only read (nothing created, changed or migrated: `tether
    cost` on a read-only home or a full disk)."""

    def __init__(
        self, path: Path, *, read_only: bool = False, busy_timeout_ms: int = BUSY_TIMEOUT_MS
    ) -> None:
        self.path = path
        self.read_only = read_only
        self._db: ForkSafeDb | None = None
        try:
            if read_only:
                self._db = ForkSafeDb(lambda: open_read_only(path, busy_timeout_ms=busy_timeout_ms))
            else:
                self._db = ForkSafeDb(lambda: open_shared(path, busy_timeout_ms=busy_timeout_ms))
            self.version = self._read_version() if read_only else self._migrate()
        except (OSError, sqlite3.Error, LedgerError) as e:
            if self._db is not None:
                self._db.close()
            if isinstance(e, OSError):
                raise LedgerError(f"cannot open the cost ledger {path}: {_reason(e)}") from None
            if isinstance(e, sqlite3.OperationalError) and not is_damage(e):
                raise LedgerError(
                    f"cannot open the cost ledger {path}: {e}", busy=is_busy(e)
                ) from None
            raise LedgerError(self.unusable(e)) from None
        self.identity = FileIdentity(path)

    @property
    def empty(self) -> bool:
        """Nothing was ever written in it (its tables not made yet: a read-only one)."""
        return self.version == 0

    def unusable(self, e: Exception) -> str:
        """What a failure of the file is said as: what to do about a damaged or foreign one;
        a passing failure (busy, a full disk) as it is."""
        damaged = isinstance(e, sqlite3.Error) and is_damage(e)
        if not damaged and not isinstance(e, LedgerError):
            return f"the cost ledger {self.path} cannot be used: {e}"
        return (
            f"the cost ledger {self.path} is not usable ({e}): move it away to start an empty "
            "one (the costs it holds are then not counted)"
        )

    def _migrate(self) -> int:
        with self.transaction() as db:
            done = self._check_version(db)
            for migration in MIGRATIONS[done:]:
                migration(db)
            db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
        return len(MIGRATIONS)

    def _read_version(self) -> int:
        assert self._db is not None
        with self._db.lock:
            return self._check_version(self._db.connection())

    def _check_version(self, db: sqlite3.Connection) -> int:
        (done,) = db.execute("PRAGMA user_version").fetchone()
        if done > len(MIGRATIONS):
            raise LedgerError(
                f"written by a newer tether (version {done}, this one reads {len(MIGRATIONS)})"
            )
        if self.read_only and 0 < done < len(MIGRATIONS):
            raise LedgerError(
                f"written by an older tether (version {done}): a session run with this one "
                "updates it (this command only reads it)"
            )
        return int(done)

    @contextlib.contextmanager
    def transaction(self) -> Generator[sqlite3.Connection]:
        """One write transaction; this process's threads one at a time."""
        assert self._db is not None
        with self._db.lock:
            db = self._db.connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def read(self, sql: str, parameters: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """The rows of one query (none from an empty ledger), or `LedgerError` saying why the
        file cannot answer it."""
        if self.empty:
            return []
        assert self._db is not None
        try:
            with self._db.lock:
                return list(self._db.connection().execute(sql, parameters).fetchall())
        except sqlite3.Error as e:
            raise LedgerError(self.unusable(e)) from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


def _reason(e: OSError) -> str:
    return e.strerror or str(e)
