"""Opening a SQLite file that several processes of the user share (the task and mailbox store,
the cost ledger, memories): the one way every store does it.

- `open_shared`: read and write. The file is created (with its folder) mode 0600 before
  SQLite opens it, so its `-wal` and `-shm`, which SQLite creates with the database's mode,
  are 0600 too, as the event log is; WAL, so readers never wait for a writer; `synchronous =
  NORMAL` (safe in WAL mode); a busy timeout for another process's write lock.
- `open_read_only`: for a command that only reads (`tether cost`): never creates, changes or
  migrates anything, so a read-only home or a full disk can still be read. SQLite first opens
  it read-only (`mode=ro`); when even that cannot work (it must create the `-shm` in a folder
  it cannot write, or on a full disk) as an unchanging file (`immutable=1`), which reads the
  database itself: what a running session has not yet checkpointed from its `-wal` is then
  not seen.
- `FileIdentity`: the device and inode a file had when opened: a file deleted, moved away or
  replaced under a running process would otherwise go on being used through the open
  descriptor, unseen by everyone else.
- `is_damage`: whether an error says the file itself is damaged (lasting), not busy or full.
- `ForkSafeDb`: a connection that never crosses a fork (SQLite's rule: a child that uses, or
  even closes, a connection its parent opened shares the parent's lock and WAL state and can
  damage the file): this process closes it just before it forks (`os.register_at_fork`), and
  the first use after opens it again, in the parent and in the child alike.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from tether.runtime_dir import make_runtime_dir

FILE_MODE = 0o600
"""A new file's mode, and so its `-wal`'s and `-shm`'s: what a session spent and did is the
user's alone, as the event log and transcripts are."""

_DAMAGED_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
"""SQLite's primary result codes for a file whose contents are damaged ("database disk
image is malformed", "file is not a database"): lasting, unlike a busy or locked file."""

_BUSY_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})


def open_shared(path: Path, *, busy_timeout_ms: int) -> sqlite3.Connection:
    """A connection to `path` for reading and writing, from any thread (one at a time),
    `isolation_level=None` (transactions are the caller's `BEGIN IMMEDIATE`). `OSError` or
    `sqlite3.Error` when it cannot be opened."""
    make_runtime_dir(path.parent)
    # Created here, not by SQLite (which would use 0644): the mode its -wal and -shm follow.
    # Only when missing (O_EXCL): closing a descriptor of a file this process's connections
    # hold would drop their POSIX locks (SQLite's warning).
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE))
    db = sqlite3.connect(
        path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
    )
    try:
        db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error:
        db.close()
        raise
    return db


def open_read_only(path: Path, *, busy_timeout_ms: int = 5_000) -> sqlite3.Connection:
    """A connection that only reads `path` (which must exist), even from a read-only folder
    or a full disk (see the module's docstring). `sqlite3.Error` when neither way can read
    it; a damaged file is told by the first query (`is_damage`)."""
    if not path.is_file():
        raise sqlite3.OperationalError(f"no such file: {path}")
    uri = "file:" + quote(str(path.absolute()))
    error: sqlite3.Error | None = None
    for options in ("mode=ro", "mode=ro&immutable=1"):
        try:
            db = sqlite3.connect(
                f"{uri}?{options}",
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=busy_timeout_ms / 1000,
            )
        except sqlite3.Error as e:
            error = error or e
            continue
        try:
            db.execute("SELECT COUNT(*) FROM sqlite_schema").fetchone()  # opens it for real
        except sqlite3.Error as e:
            db.close()
            if is_damage(e):
                raise
            error = error or e
            continue
        return db
    assert error is not None
    raise error


class FileIdentity:
    """The device and inode of `path` when this was made; `changed` says how it differs now."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._identity = _identity(path)

    def changed(self) -> str | None:
        """None while `path` is still the file; else "deleted or moved away" or "replaced
        by another file" (one `stat`)."""
        found = _identity(self.path)
        if found == self._identity:
            return None
        return "deleted or moved away" if found is None else "replaced by another file"


def is_damage(e: sqlite3.Error) -> bool:
    """Whether `e` says the file itself is damaged (its primary result code)."""
    code = getattr(e, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _DAMAGED_CODES


def is_busy(e: sqlite3.Error) -> bool:
    """Whether `e` says another connection holds a lock (passing: worth trying again)."""
    code = getattr(e, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _BUSY_CODES


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:  # gone, or its folder with it
        return None
    return (st.st_dev, st.st_ino)


class ForkSafeDb:
    """A connection `open` makes (`open_shared`, `open_read_only`), taken with `connection()`
    while holding `lock`: closed in this process just before it forks (after the thread
    using it, if any, lets go of `lock`) and opened again by `open` at its first use after,
    so no SQLite connection is ever open across a fork (a parent's store works on, and a
    forked child's is its own). `open` is called again only then: a holder checks there that
    the file is still the one it opened (`FileIdentity`) before a new connection makes one.
    A thread must not fork while it holds `lock` (inside a transaction): the fork would wait
    for it for ever (`tether.teams.forked.fork` runs from a process of one thread, outside
    any)."""

    def __init__(self, open: Callable[[], sqlite3.Connection]) -> None:
        self.lock = threading.Lock()
        self._open = open
        self._db: sqlite3.Connection | None = open()
        self._closed = False
        _FORK_SAFE.add(self)

    def connection(self) -> sqlite3.Connection:
        """The open connection (opened again after a fork); `lock` held by the caller."""
        if self._db is None:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            self._db = self._open()
        return self._db

    def close(self) -> None:
        with self.lock:
            self._closed = True
            if self._db is not None:
                self._db.close()
                self._db = None

    def _before_fork(self) -> None:
        self.lock.acquire()
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None

    def _after_fork(self) -> None:
        self.lock.release()


_FORK_SAFE: weakref.WeakSet[ForkSafeDb] = weakref.WeakSet()
_HELD: list[ForkSafeDb] = []
"""Those closed for the fork under way (their locks held until it is done)."""


def _before_fork() -> None:
    _HELD[:] = list(_FORK_SAFE)
    for db in _HELD:
        db._before_fork()  # pyright: ignore[reportPrivateUsage]


def _after_fork() -> None:
    for db in _HELD:
        db._after_fork()  # pyright: ignore[reportPrivateUsage]
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork, after_in_parent=_after_fork, after_in_child=_after_fork
    )
