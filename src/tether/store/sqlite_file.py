"""`SqliteFile`: one SQLite file shared by several processes, as the embedded stores use it.

WAL, so readers never wait for a writer; every change in one `BEGIN IMMEDIATE` transaction, so
two processes writing at once are serialised by SQLite's write lock; a schema version per
store kept in the file's `meta` table, so a file written by a newer tether is refused, not
misread. The task store and the mailbox store keep their tables in the same file.

The opening itself (mode 0600, WAL, busy timeout) is `tether.sqlite_files.open_shared`'s.
The file's identity (device and inode) is taken when it is opened and checked at each
transaction (one `stat`): a file deleted or moved away under a running process would
otherwise go on being used through the open descriptor, unseen by everyone else, so that
raises `StoreLost` instead, as a Redis board whose data is gone does.

The connection never crosses a fork (`ForkSafeDb`): closed as this process forks, it is
opened again at the first transaction after, in the parent and in the child, once the file
is found to be still the one first opened (a file gone is not made again empty).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Generator
from pathlib import Path

from tether.sqlite_files import FileIdentity, ForkSafeDb, is_damage, open_shared
from tether.store.store_errors import StoreDamaged, StoreLost, StoreUnavailable

BUSY_TIMEOUT_MS = 60_000
"""How long a transaction waits for another process's write lock before giving up."""


def damaged_text(path: Path, what: str, e: sqlite3.Error | str) -> str:
    return (
        f"{path} is not a usable {what} ({e}): restore it from a copy, or move it away "
        "to start an empty one (what it holds is then lost)"
    )


class SqliteFile:
    """A connection to `path` (created with its folder when missing), its schema applied:
    `what` names the store in messages ("task store"), `schema_key` its version in `meta`."""

    def __init__(self, path: Path, *, what: str, schema: str, schema_key: str, version: int):
        self.path, self.what = path, what
        self._identity: FileIdentity | None = None
        try:
            self._db = ForkSafeDb(self._open)
        except sqlite3.DatabaseError as e:
            if is_damage(e):  # WAL mode is set on opening: a foreign file fails there
                raise StoreDamaged(damaged_text(path, what, e)) from None
            raise StoreUnavailable(f"cannot open the {what} {path}: {e}") from None
        except (OSError, sqlite3.Error) as e:
            raise StoreUnavailable(f"cannot open the {what} {path}: {e}") from None
        try:
            self._migrate(schema, schema_key, version)
            self._identity = FileIdentity(path)  # the file holds the schema now
        except sqlite3.DatabaseError as e:
            self._db.close()
            if is_damage(e):
                raise StoreDamaged(damaged_text(path, what, e)) from None
            raise StoreUnavailable(
                f"{path} is not a usable {what} ({e}): move it away to start an empty one"
            ) from None

    def _open(self) -> sqlite3.Connection:
        """A new connection: on the first opening, or after a fork closed the last one (the
        file still the one first opened, else `StoreLost`; nothing is created then)."""
        self._check_identity()
        return open_shared(self.path, busy_timeout_ms=BUSY_TIMEOUT_MS)

    def _migrate(self, schema: str, key: str, version: int) -> None:
        with self.transaction() as db:
            for statement in schema.split(";"):
                if statement.strip():
                    db.execute(statement)
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES (?, ?)", (key, str(version)))
            elif int(row[0]) > version:
                raise sqlite3.DatabaseError(
                    f"written by a newer tether (schema {row[0]}, this one reads {version})"
                )

    @contextlib.contextmanager
    def transaction(self) -> Generator[sqlite3.Connection]:
        """One write transaction, this process's threads one at a time."""
        with self._db.lock:
            db = self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                self._check_identity()
                yield db
            except BaseException:
                if db.in_transaction:  # a damaged file may have ended it already
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextlib.contextmanager
    def reading(self) -> Generator[sqlite3.Connection]:
        """Statements outside a write transaction (each its own consistent WAL snapshot)."""
        with self._db.lock:
            db = self._connection()
            self._check_identity()
            yield db

    def _connection(self) -> sqlite3.Connection:
        """The connection (opened again after a fork), `self._db.lock` held; a failure to
        open it again said as a statement's is (`unavailable`)."""
        try:
            return self._db.connection()
        except OSError as e:
            raise StoreUnavailable(f"cannot open the {self.what} {self.path}: {e}") from None

    def _check_identity(self) -> None:
        """`StoreLost` unless `path` is still the file this connection opened."""
        if self._identity is None:
            return  # opening: nothing to compare with yet
        how = self._identity.changed()
        if how is None:
            return
        raise StoreLost(
            f"the {self.what} {self.path} was {how} since this process opened it; what it "
            "held is not where `tether tasks` looks any more, and nothing more is recorded "
            "in it. Put the file back, or start again on the new one"
        )

    def unavailable(self, e: sqlite3.DatabaseError) -> StoreUnavailable:
        """What a failed statement is said as: `StoreDamaged` when the file is damaged
        (lasting: nothing retries it), else `StoreUnavailable` (busy, locked, a full disk)."""
        if is_damage(e):
            return StoreDamaged(damaged_text(self.path, self.what, e))
        return StoreUnavailable(f"{self.what} {self.path}: {e}")

    def close(self) -> None:
        self._db.close()
