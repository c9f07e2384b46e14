"""Advisory locks (`flock`) on a file system that may not have them: an NFS mount whose lock
daemon cannot be reached answers ENOLCK, some FUSE and network file systems EOPNOTSUPP or
ENOSYS. There no lock can be taken at all, by anyone: what a lock guards (two tether
processes on one session, on one workspace's sandbox placeholders) is then not guarded, and
the work goes on without it, told once per process (`unguarded`), never a traceback.

- `flock`: `fcntl.flock`, or False where locks are unsupported; any other failure (a lock
  held by another, `BlockingIOError`) is raised as before.
- `locks_work`: whether a folder's file system takes locks, asked without creating anything
  (for SQLite, which reports a lock it cannot take as "busy").
"""

from __future__ import annotations

import errno
import fcntl
import os
import sys
import threading
from pathlib import Path

UNSUPPORTED = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS})
"""What `flock` answers where the file system has no locks (not: held by another)."""

_told = threading.Event()


def unsupported(error: OSError) -> bool:
    """Whether `error` says the file system cannot lock, rather than that a lock is held."""
    return error.errno in UNSUPPORTED


def flock(fd: int, operation: int, *, what: str) -> bool:
    """Take (or release) the lock `operation` on `fd`; False, told once, where the file
    system has no locks. `what`: what goes unguarded then, for the user ("session X")."""
    try:
        fcntl.flock(fd, operation)
    except OSError as e:
        if not unsupported(e):
            raise
        unguarded(what, e)
        return False
    return True


def unguarded(what: str, error: OSError) -> None:
    """Say once per process that locks cannot be taken here, and what that leaves unguarded."""
    if _told.is_set():
        return
    _told.set()
    reason = os.strerror(error.errno) if error.errno else str(error)
    print(
        f"tether: warning: the file system takes no locks ({reason}): concurrent use of "
        f"{what} by another tether process is not guarded; going on without locks",
        file=sys.stderr,
        flush=True,
    )


def locks_work(folder: Path) -> bool:
    """Whether locks can be taken on `folder`'s file system: a shared lock on the folder
    itself, let go at once (nothing is created; no POSIX lock of this process is dropped).
    True when the folder cannot even be opened: that is not a question of locks."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as e:
        return not unsupported(e)
    finally:
        os.close(fd)
    return True
