"""Collecting a command's output in bounded memory: the head and tail for the model, everything
(up to a cap) in a log file the model can Read when the middle was cut."""

from __future__ import annotations

import codecs
import contextlib
import os
import tempfile
from pathlib import Path

from tether.tools.builtin.files import human_size

SHOWN_CHARS = 30_000
"""At most this much output goes to the model (plus the marker saying what was cut)."""
HEAD_CHARS = 10_000
TAIL_CHARS = SHOWN_CHARS - HEAD_CHARS
LOG_CAP_BYTES = 64 * 1024 * 1024


class OutputCapture:
    """Fed chunks as they arrive; memory stays bounded however much the command prints."""

    def __init__(self, log_dir: Path, *, log_cap: int = LOG_CAP_BYTES) -> None:
        log_dir.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix="bash-", suffix=".log", dir=log_dir)
        self.log_path = Path(name)
        self._log = os.fdopen(fd, "wb")
        self._log_cap = log_cap
        self._logged = 0
        self.log_error: str | None = None
        self.total_bytes = 0
        self.total_lines = 0
        # The first SHOWN_CHARS bytes, then a sliding window over the last TAIL_CHARS bytes.
        self._head = bytearray()
        self._tail = bytearray()

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        self.total_lines += data.count(b"\n")
        room = SHOWN_CHARS - len(self._head)
        if room > 0:
            self._head += data[:room]
        self._tail += data
        if len(self._tail) > 2 * TAIL_CHARS:
            del self._tail[:-TAIL_CHARS]
        self._write_log(data)

    def _write_log(self, data: bytes) -> None:
        if self.log_error is not None or self._logged >= self._log_cap:
            return
        part = data[: self._log_cap - self._logged]
        try:
            self._log.write(part)
        except OSError as e:
            self.log_error = e.strerror or str(e)
            return
        self._logged += len(part)

    @property
    def was_cut(self) -> bool:
        return self.total_bytes > SHOWN_CHARS

    def close(self) -> None:
        """Close the log; it is deleted when nothing was cut, since the model saw it all."""
        try:
            self._log.close()
        except OSError as e:
            self.log_error = self.log_error or e.strerror or str(e)
        if not self.was_cut:
            # The command may have put anything in its place (it can write the scratch
            # directory); unlink never follows a symlink, and a directory stays.
            with contextlib.suppress(OSError):
                self.log_path.unlink()

    def text(self) -> str:
        """What the model sees: all of it, or head + marker + tail."""
        if not self.was_cut:
            return _decode(bytes(self._head))
        head = _decode_head(bytes(self._head[:HEAD_CHARS])).rstrip("\n")
        tail = _decode_tail(bytes(self._tail[-TAIL_CHARS:]))
        cut_bytes = self.total_bytes - HEAD_CHARS - TAIL_CHARS
        return f"{head}\n\n{self._marker(cut_bytes)}\n\n{tail}"

    def _marker(self, cut_bytes: int) -> str:
        total = f"{human_size(self.total_bytes)}, {self.total_lines:,} lines"
        if self.log_error is not None:
            where = f"the full output could not be saved ({self.log_error})"
        elif self._logged < self.total_bytes:
            where = (
                f"the first {human_size(self._logged)} of the output were saved to "
                f"{self.log_path} (the log cap was hit; the rest is lost)"
            )
        else:
            where = f"the full output is in {self.log_path}"
        return (
            f"[... {cut_bytes:,} bytes cut from the middle of {total}; {where}; "
            "Read it with offset/limit or search it with Grep ...]"
        )


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _decode_head(data: bytes) -> str:
    # A character split by the cut is left out rather than shown as U+FFFD.
    return codecs.getincrementaldecoder("utf-8")(errors="replace").decode(data, final=False)


def _decode_tail(data: bytes) -> str:
    start = 0
    while start < min(len(data), 3) and 0x80 <= data[start] <= 0xBF:
        start += 1
    return _decode(data[start:])
