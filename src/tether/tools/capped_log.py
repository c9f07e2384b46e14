"""A background command's output log, kept under a cap: past it, the oldest output is dropped
and the newest kept (what a running server or watcher printed last is what matters).

tether writes it itself, from the pipe the command prints to (a command writing straight to a
file could fill the disk: a background `yes` wrote 2.5 GB in 6 s). When the log passes `cap`,
its newest half is copied to a new file that takes the log's name (a rename, so that a reader
sees one or the other), and the bytes before it are counted as dropped. Offsets are kept in
bytes since the command started, so a reader knows what it missed.

The logs of one session also share a `LogBudget`: twenty background `yes` would otherwise take
twenty caps of disk. A log may use what the others leave of it (up to its own cap); once too
little is left, what its command prints is counted, not kept, and the log says why.

The log is created with `mkstemp` (exclusively, never through a link) in the scratch directory
and only ever used through tether's own descriptor, as the other scratch files are.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import weakref
from pathlib import Path

DEFAULT_CAP_BYTES = 64 * 1024 * 1024
"""The log of one background command takes at most this much disk."""
DEFAULT_TOTAL_BYTES = 256 * 1024 * 1024
"""The logs of one session's background commands take at most this much disk together."""
MIN_ROOM_BYTES = 64 * 1024
"""A log left less room than this by the others stops keeping output (and says so)."""


class LogBudget:
    """Disk shared by the logs of one session: `used` bytes of `total_bytes`."""

    def __init__(self, total_bytes: int = DEFAULT_TOTAL_BYTES) -> None:
        self.total_bytes = total_bytes
        self.used = 0


class CappedLog:
    """Append-only output, at most `cap_bytes` on disk. `dropped` bytes from the start have
    been discarded; the file holds the bytes from `dropped` to `size`."""

    def __init__(
        self,
        directory: Path,
        prefix: str,
        *,
        cap_bytes: int = DEFAULT_CAP_BYTES,
        budget: LogBudget | None = None,
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.budget = budget or LogBudget(cap_bytes)
        self.fd, name = tempfile.mkstemp(prefix=prefix, suffix=".log", dir=directory)
        _appending(self.fd)
        self.path = Path(name)
        self.cap_bytes = cap_bytes
        self.dropped = 0
        self.size = 0
        self.error: str | None = None
        """Why output could not be kept (a full disk), once it happened."""
        self.squeezed = False
        """Output was dropped under the session's total (`budget`), not this log's own cap."""
        self.saved_end = 0
        """Output up to here is in the log (all of it, unless an error stopped the saving)."""
        self._finalizer = weakref.finalize(self, _close_quietly, self.fd)

    def append(self, data: bytes) -> None:
        if self.error is None and data:
            self._follow_cut()
            before = self._on_disk()
            # What this log may hold: its own cap, or what the session's other logs leave.
            room = min(self.cap_bytes, self.budget.total_bytes - (self.budget.used - before))
            try:
                if room < min(MIN_ROOM_BYTES, self.cap_bytes):
                    total = _mib(self.budget.total_bytes)
                    self.error = f"the session's background commands filled the {total} kept"
                elif before + len(data) > room:
                    self.squeezed = self.squeezed or room < self.cap_bytes
                    self._keep_newest_half(data, room)
                    self.saved_end = self.size + len(data)
                else:
                    self._write(self.fd, data)
                    self.saved_end = self.size + len(data)
            except OSError as e:
                self.error = e.strerror or str(e)  # what follows is counted, not kept
            self.budget.used += self._on_disk() - before
        self.size += len(data)

    def read(self, start: int, length: int) -> bytes:
        """Up to `length` bytes from offset `start` (counted since the command started; what
        was dropped before `dropped` is not there, nor what came after `saved_end`)."""
        start = max(start, self.dropped)
        length = min(length, self.saved_end - start)
        if length <= 0:
            return b""
        return os.pread(self.fd, length, start - self.dropped)

    def close(self) -> None:
        """Close the log; its disk goes back to the budget (its directory is removed next)."""
        if self._finalizer.alive:
            self.budget.used -= self._on_disk()
        self._finalizer()

    def _follow_cut(self) -> None:
        """Another program cut the file short: what it cut counts as dropped, so that what
        follows is read where it is written (at the new end: `_appending`)."""
        with contextlib.suppress(OSError):
            found = os.fstat(self.fd).st_size
            if found < self._on_disk():
                self.budget.used -= self._on_disk() - found
                self.dropped = self.saved_end - found

    def _on_disk(self) -> int:
        return self.saved_end - self.dropped

    def _keep_newest_half(self, data: bytes, room: int) -> None:
        keep = room // 2
        on_disk = self.size - self.dropped
        total = on_disk + len(data)
        from_old = max(0, min(on_disk, keep - len(data)))
        fd, name = tempfile.mkstemp(prefix=".rotating-", dir=self.path.parent)
        try:
            _appending(fd)
            if from_old:
                self._write(fd, os.pread(self.fd, from_old, on_disk - from_old))
            self._write(fd, data[-keep:] if len(data) > keep else data)
            # A rename, never a write through the name: the command can write the scratch
            # directory, and whatever it put at the log's name is replaced, not followed.
            os.replace(name, self.path)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise
        self._finalizer()
        self.fd = fd
        self._finalizer = weakref.finalize(self, _close_quietly, fd)
        kept = from_old + min(len(data), keep)
        self.dropped += total - kept

    @staticmethod
    def _write(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]


def _appending(fd: int) -> None:
    """Writes go to the file's end wherever it is: a log cut short by another program (`: >
    log`) goes on from its new end, not at the old offset past a hole read back as NULs."""
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
