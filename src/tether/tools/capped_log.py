"""A background command's output log, kept under a cap: past it, the oldest output is dropped
and the newest kept (what a running server or watcher printed last is what matters).

tether writes it itself, from the pipe the command prints to (a command writing straight to a
file could fill the disk: a background `yes` wrote 2.5 GB in 6 s). When the log passes `cap`,
its newest half is copied to a new file that takes the log's name (a rename, so that a reader
sees one or the other), and the bytes before it are counted as dropped. Offsets are kept in
bytes since the command started, so a reader knows what it missed.

The log is created with `mkstemp` (exclusively, never through a link) in the scratch directory
and only ever used through tether's own descriptor, as the other scratch files are.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import weakref
from pathlib import Path

DEFAULT_CAP_BYTES = 64 * 1024 * 1024
"""The log of one background command takes at most this much disk."""


class CappedLog:
    """Append-only output, at most `cap_bytes` on disk. `dropped` bytes from the start have
    been discarded; the file holds the bytes from `dropped` to `size`."""

    def __init__(self, directory: Path, prefix: str, *, cap_bytes: int = DEFAULT_CAP_BYTES) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.fd, name = tempfile.mkstemp(prefix=prefix, suffix=".log", dir=directory)
        self.path = Path(name)
        self.cap_bytes = cap_bytes
        self.dropped = 0
        self.size = 0
        self.error: str | None = None
        """Why output could not be kept (a full disk), once it happened."""
        self.saved_end = 0
        """Output up to here is in the log (all of it, unless an error stopped the saving)."""
        self._finalizer = weakref.finalize(self, _close_quietly, self.fd)

    def append(self, data: bytes) -> None:
        if self.error is None and data:
            try:
                if self.size - self.dropped + len(data) > self.cap_bytes:
                    self._keep_newest_half(data)
                else:
                    self._write(self.fd, data)
            except OSError as e:
                self.error = e.strerror or str(e)  # what follows is counted, not kept
            else:
                self.saved_end = self.size + len(data)
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
        self._finalizer()

    def _keep_newest_half(self, data: bytes) -> None:
        keep = self.cap_bytes // 2
        on_disk = self.size - self.dropped
        total = on_disk + len(data)
        from_old = max(0, min(on_disk, keep - len(data)))
        fd, name = tempfile.mkstemp(prefix=".rotating-", dir=self.path.parent)
        try:
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


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
