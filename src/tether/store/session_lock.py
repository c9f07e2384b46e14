"""One writer per session file: the lock that keeps a second tether process from mixing its
entries into a session another is writing."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tether.file_locks import unguarded, unsupported
from tether.protocol import HarnessError


class SessionInUse(HarnessError):
    """Another open writer (most likely another tether process) holds the session file."""


def lock_session_file(fd: int, path: Path) -> None:
    """Hold the session file for this writer alone; `SessionInUse` when another holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SessionInUse(f"session {path.stem} is in use by another tether process") from None
    except OSError as e:  # a file system without locks: go on unlocked, saying so once
        if not unsupported(e):
            raise HarnessError(f"cannot lock session file {path}: {e.strerror or e}") from e
        unguarded(f"session {path.stem}", e)


def ends_with_newline(path: Path, fd: int) -> bool:
    """Whether the file ends its last line (an entry cut short by a crash does not)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return True
    reader = os.open(path, os.O_RDONLY)
    try:
        return os.pread(reader, 1, size - 1) == b"\n"
    finally:
        os.close(reader)
