"""Opening the memory file: SQLite with FTS5, and sqlite-vec loaded when it can be.

Python's own `sqlite3` loads extensions only when it was built to; where it was not (some
builds leave `enable_load_extension` out), the `sqlean` module of the `memory` extra, a
drop-in `sqlite3` that can, is used instead."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path
from typing import Any

BUSY_TIMEOUT_MS = 5_000
"""How long a write waits for another process's (memory is shared by every session of the
project)."""


def connect(path: Path, *, with_vectors: bool) -> tuple[Any, bool]:
    """A connection to `path` (WAL, busy timeout) and whether sqlite-vec is loaded in it."""
    module: Any = sqlite3
    if with_vectors and not hasattr(sqlite3.Connection, "enable_load_extension"):
        module = _sqlean() or sqlite3
    db: Any = module.connect(
        str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    loaded = with_vectors and _load_vec(db)
    return db, loaded


def database_errors() -> tuple[type[Exception], ...]:
    """The DB-API errors of every module `connect` may use."""
    errors: list[type[Exception]] = [sqlite3.Error]
    sqlean = _sqlean()
    if sqlean is not None:
        errors.append(sqlean.Error)
    return tuple(errors)


def _sqlean() -> Any:
    if importlib.util.find_spec("sqlean") is None:
        return None
    import sqlean  # pyright: ignore[reportMissingTypeStubs]

    return sqlean


def _load_vec(db: Any) -> bool:
    if importlib.util.find_spec("sqlite_vec") is None or not hasattr(db, "enable_load_extension"):
        return False
    try:
        import sqlite_vec  # pyright: ignore[reportMissingTypeStubs]
    except ImportError:  # there but broken: words only
        return False
    db.enable_load_extension(True)
    try:
        sqlite_vec.load(db)
    finally:
        db.enable_load_extension(False)
    return True


def explain(path: Path, error: BaseException) -> str:
    """What went wrong with the memory file at `path`, and what to do."""
    text = str(error)
    if "not a database" in text or "malformed" in text:
        return (
            f"{path} is damaged or not a memory file ({text}); move it away to start an empty "
            "one (its memories are not read)"
        )
    name = str(getattr(error, "sqlite_errorname", ""))
    if name == "SQLITE_FULL" or name.startswith("SQLITE_IOERR"):
        return (
            f"{path} cannot be written ({text}: the disk is full, or the file is past a size "
            "limit); what was being saved is not kept, the memories before it are"
        )
    return f"{path}: {text}"
