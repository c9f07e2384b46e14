"""The ledger's SQLite file: shared by every process of the user (sessions, subagents, workers).

WAL, so `tether cost` reads while sessions write; each write one `BEGIN IMMEDIATE` transaction,
so processes writing at once are serialised by SQLite's write lock (waiting up to
`BUSY_TIMEOUT_MS`); migrations are an ordered list, the version kept in `PRAGMA user_version`,
and a file written by a newer tether is refused rather than misread.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Generator
from pathlib import Path

BUSY_TIMEOUT_MS = 10_000
LEDGER_FILE = "ledger.db"
_DAMAGED_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
"""SQLite's result codes for a file whose contents are damaged or not a database."""


class LedgerError(Exception):
    """The ledger cannot be opened, read or written; the message says which file and why."""


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


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_first,)
"""Applied in order; `PRAGMA user_version` is how many a file has had."""


def ledger_path(home: Path) -> Path:
    """The ledger under tether's home (`$TETHER_HOME`)."""
    return home / LEDGER_FILE


class LedgerFile:
    """An open ledger at `path` (created with its folder when missing), migrated."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
            )
        except (OSError, sqlite3.Error) as e:
            raise LedgerError(f"cannot open the cost ledger {path}: {e}") from None
        try:
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except (sqlite3.Error, LedgerError) as e:
            self.db.close()
            raise LedgerError(self.unusable(e)) from None

    def unusable(self, e: Exception) -> str:
        """What a failure of the file is said as: what to do about a damaged or foreign one;
        a passing failure (busy, a full disk) as it is."""
        code = getattr(e, "sqlite_errorcode", None)
        damaged = isinstance(code, int) and code & 0xFF in _DAMAGED_CODES
        if not damaged and not isinstance(e, LedgerError):
            return f"the cost ledger {self.path} cannot be used: {e}"
        return (
            f"the cost ledger {self.path} is not usable ({e}): move it away to start an empty "
            "one (the costs it holds are then not counted)"
        )

    def _migrate(self) -> None:
        with self.transaction() as db:
            (done,) = db.execute("PRAGMA user_version").fetchone()
            if done > len(MIGRATIONS):
                raise LedgerError(
                    f"written by a newer tether (version {done}, this one reads {len(MIGRATIONS)})"
                )
            for migration in MIGRATIONS[done:]:
                migration(db)
            db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")

    @contextlib.contextmanager
    def transaction(self) -> Generator[sqlite3.Connection]:
        """One write transaction; this process's threads one at a time."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                if self.db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def read(self, sql: str, parameters: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """The rows of one query, or `LedgerError` saying why the file cannot answer it."""
        try:
            with self._lock:
                return list(self.db.execute(sql, parameters).fetchall())
        except sqlite3.Error as e:
            raise LedgerError(self.unusable(e)) from None

    def close(self) -> None:
        with self._lock:
            self.db.close()
