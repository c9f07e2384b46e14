"""Appending to the event log's files: safe with several processes writing at once.

Each batch of complete lines goes out in one `write` on a descriptor opened with `O_APPEND`:
the kernel places every write at the end of the file whole, so lines from several processes
never tear or overwrite each other. Past `max_bytes` the file is rotated under an `flock`
(`events.jsonl` -> `events.1.jsonl` -> ...; the oldest past `keep` deleted); a writer whose
file was rotated away by another process notices (its descriptor's inode is no longer the
path's) and reopens the path before its next batch, so at most the batch under way lands in
the file just rotated, whole.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path

from tether.file_locks import flock

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DEFAULT_KEEP = 5


class AppendFile:
    """One file appended to by whole lines, rotated by size when `max_bytes` is set."""

    def __init__(
        self, path: Path, *, max_bytes: int | None = DEFAULT_MAX_BYTES, keep: int = DEFAULT_KEEP
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep
        self._fd: int | None = None
        self._torn = False
        """The file ends in a line cut short (a full disk, a writer killed mid-write): the next
        write starts on a line of its own, not glued to that one."""

    def append(self, lines: list[str]) -> None:
        """Write these lines (without their newlines) at the end of the file, in one write."""
        if not lines:
            return
        fd = self._current()
        start = "\n" if self._torn else ""
        data = (start + "\n".join(lines) + "\n").encode("utf-8", errors="replace")
        if self.max_bytes is not None and os.fstat(fd).st_size + len(data) > self.max_bytes:
            fd = self._rotate(len(data), self.max_bytes)
        view = memoryview(data)
        self._torn = True  # until the last byte is written
        end = 0  # where what this batch wrote ends, once some of it is written
        try:
            while view:  # a regular file takes a write whole; a short one (disk full) goes on
                written = os.write(fd, view)
                view = view[written:]
                end = os.lseek(fd, 0, os.SEEK_CUR)
        except OSError:
            if end:
                self._take_back(fd, end - (len(data) - len(view)), end)
            raise
        self._torn = False

    def _take_back(self, fd: int, start: int, end: int) -> None:
        """Remove what a batch that failed part-way wrote (a full disk): whole lines or
        nothing. Only when nothing was appended after it; else the next batch starts a line
        of its own after the cut one."""
        try:
            if os.fstat(fd).st_size == end:
                os.ftruncate(fd, start)
                self._torn = _ends_torn(self.path)
        except OSError:
            pass  # still torn: the next batch starts on a line of its own

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _current(self) -> int:
        if self._fd is not None:
            try:
                same = os.stat(self.path).st_ino == os.fstat(self._fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return self._fd
            self.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._torn = _ends_torn(self.path)
        return self._fd

    def _rotate(self, adding: int, max_bytes: int) -> int:
        with rotation_lock(self.path, shared=False):
            try:
                size = os.stat(self.path).st_size
            except FileNotFoundError:
                size = 0
            # Checked again under the lock: another writer may have rotated it already.
            if size > 0 and size + adding > max_bytes:
                self._shift()
            self.close()
            return self._current()

    def _shift(self) -> None:
        for index in range(self.keep, 0, -1):
            older = self.path.with_name(_numbered(self.path.name, index))
            newer = self.path.with_name(_numbered(self.path.name, index - 1))
            if index == self.keep:
                older.unlink(missing_ok=True)
            if newer.exists():
                os.replace(newer, older)


@contextmanager
def rotation_lock(path: Path, *, shared: bool) -> Generator[bool]:
    """The `flock` a writer rotates the file under (exclusive); a reader holds it shared while
    it tells which file follows which, so that no rotation renames them in the middle of its
    look. Yields whether it is held: a reader that cannot open the lock file (a log it may
    only read, written by nobody yet) looks without it."""
    lock_path = path.with_name(f".{path.name}.lock")
    try:
        lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        if not shared:
            raise
        try:
            lock = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            yield False
            return
    try:
        held = flock(
            lock, fcntl.LOCK_SH if shared else fcntl.LOCK_EX, what=f"the rotation of {path}"
        )
        yield held
    finally:
        os.close(lock)  # releases the flock


def _numbered(name: str, index: int) -> str:
    """`events.jsonl` as its rotated copy number `index` (0: the name itself)."""
    if index == 0:
        return name
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}.{index}.{suffix}" if dot else f"{name}.{index}"


def _ends_torn(path: Path) -> bool:
    """Whether the file's last byte is not a newline (an earlier writer's line cut short)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return False
        with path.open("rb") as file:
            size = file.seek(0, os.SEEK_END)
            if size == 0:
                return False
            file.seek(size - 1)
            return file.read(1) != b"\n"
    except OSError:  # a FIFO, no read permission: nothing known, nothing to mend
        return False
