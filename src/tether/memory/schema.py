"""The memory file's tables, made by a migration kept in `PRAGMA user_version`, and the one
transaction each write is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1


class MemoryFileError(Exception):
    """The memory file cannot be opened, read or written; the message says which and why."""


class Transaction:
    """One `BEGIN IMMEDIATE` transaction: committed, or rolled back on an exception."""

    def __init__(self, db: Any) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *_: object) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")


def migrate(db: Any, path: Path) -> None:
    """The tables made when the file has none; a file of a newer schema refused."""
    if version(db, path) == SCHEMA_VERSION:
        return
    with Transaction(db):  # looked at again under the lock: another process may
        if version(db, path) == SCHEMA_VERSION:  # have made the tables meanwhile
            return
        db.execute(
            "CREATE TABLE memories (id INTEGER PRIMARY KEY, text TEXT NOT NULL, "
            "tags TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL)"
        )
        db.execute(
            "CREATE VIRTUAL TABLE memories_fts USING fts5(text, tags, tokenize='porter unicode61')"
        )
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def version(db: Any, path: Path) -> int:
    found = int(db.execute("PRAGMA user_version").fetchone()[0])
    if found > SCHEMA_VERSION:
        raise MemoryFileError(
            f"{path} was written by a newer tether (schema {found}); upgrade tether"
        )
    return found
