"""Session files written under a hidden name and given their session's name only once whole.

A copy (a fork, or a session going on in a new file because its own was removed or replaced)
is written to `.<id>.<suffix>`, which no listing or lookup sees, while its writer holds the
file's lock; then it is linked to `<id>.jsonl`, which never names a file cut short by a kill, a
full disk or an error. A partial file nobody holds is a dead process's: it is removed whenever
a session starts, continues or forks in its directory.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path

FORKING_SUFFIX = ".forking"
MOVING_SUFFIX = ".moving"
_SUFFIXES = (FORKING_SUFFIX, MOVING_SUFFIX)
COPY_CHUNK = 1 << 20


def partial_path(path: Path, suffix: str) -> Path:
    """The hidden name `path` (`<id>.jsonl`) is written under until it is whole."""
    return path.with_name(f".{path.stem}{suffix}")


def copy_whole(source: int, size: int, target: int) -> bool:
    """Copy the first `size` bytes of `source` to `target` and sync it; whether the copy ends a
    line (or is empty)."""
    offset = 0
    while offset < size:
        chunk = os.pread(source, min(COPY_CHUNK, size - offset), offset)
        if not chunk:
            break
        view = memoryview(chunk)
        while view:
            view = view[os.write(target, view) :]
        offset += len(chunk)
    os.fsync(target)
    return offset == 0 or os.pread(source, 1, offset - 1) == b"\n"


def put_in_place(partial: Path, path: Path) -> None:
    """Give `partial` the name `path`, never over a file already there (`FileExistsError`).
    The open descriptor, and its lock, go with the file."""
    try:
        os.link(partial, path)
    except OSError as e:
        if e.errno == errno.EEXIST:
            raise FileExistsError(errno.EEXIST, "a file already exists there") from None
        if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS):
            raise
        # A file system without hard links: a rename, after looking.
        if path.exists() or path.is_symlink():
            raise FileExistsError(errno.EEXIST, "a file already exists there") from None
        os.rename(partial, path)
        return
    with contextlib.suppress(OSError):
        partial.unlink()


def remove_abandoned(directory: Path) -> None:
    """Remove the partial files of processes that ended before finishing them: nobody holds
    their lock (a copy in progress elsewhere does, and is left alone)."""
    try:
        names = [n for n in os.listdir(directory) if n.startswith(".") and n.endswith(_SUFFIXES)]
    except OSError:
        return
    for name in names:
        try:
            fd = os.open(directory / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            (directory / name).unlink()
        except OSError:
            pass  # held: a copy in progress; or already gone
        finally:
            os.close(fd)
