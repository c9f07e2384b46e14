"""Reading the event log: the last records that match, and what is added after, across
rotations and truncations (`tether events tail [-f]`); an event delivered twice (the same
`event_id`) shown once (`Seen`).

The last records are read from the end of the files backwards, a block at a time, newest
file first, until enough match: the time and memory go with what is shown, not with the size
of the log (a filter that matches nothing still reads it all, a block at a time)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, Literal

from tether.observe.log_file import rotation_lock
from tether.observe.records import (
    LOG_NAME,
    EventRecord,
    RecordError,
    Seen,
    log_dir,
    log_files,
    parse_record,
)

Wanted = Callable[[EventRecord], bool]
BLOCK = 64 * 1024
"""How much of a file is read at a time, backwards from its end."""


_MAX_LOOKS = 100
"""Looks at the log's files for the one after a finished file, at most, while a writer
rotates them (each look is a listing and a few `stat`s)."""


class LogReader:
    """Reads the log's current file from where it last stopped; when the file is rotated
    away it finishes the old one, then starts the new one from its beginning."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = log_dir(home) / LOG_NAME
        self._file: BinaryIO | None = None
        self._partial = b""
        self.seen = Seen()

    def read_new(self) -> list[EventRecord]:
        """The records added since the last call (all of the current file at the first)."""
        return [r for r in self._read_new() if self.seen.first(r)]

    def _read_new(self) -> list[EventRecord]:
        records: list[EventRecord] = []
        while True:
            if self._file is None:
                try:
                    self._file = self.path.open("rb")
                except FileNotFoundError:
                    return records
            if self._truncated():  # emptied in place (`: > events.jsonl`): read it anew
                self._file.seek(0)
                self._partial = b""
            records.extend(self._complete_lines(self._file.read()))
            if not self._rotated():
                return records
            records.extend(self._complete_lines(self._file.read()))  # written before it moved
            inode = os.fstat(self._file.fileno()).st_ino
            following = self._successor(inode)
            if following is None:  # it is the current file again (a look between two renames)
                return records
            self._file.close()
            self._file, self._partial = (following.pop() if following else None), b""
            for file in following:  # it was deleted unfinished: the files after it, whole
                with file:
                    records.extend(_parsed(file.read().split(b"\n")))

    def skip_to_end(self) -> tuple[int, int] | None:
        """Open the current file and stand after its last complete line, without reading
        what comes before: the file's descriptor and that offset (None: no file yet)."""
        if self._file is None:
            try:
                self._file = self.path.open("rb")
            except FileNotFoundError:
                return None
        fd = self._file.fileno()
        end = _after_last_newline(fd, os.fstat(fd).st_size)
        self._file.seek(end)
        self._partial = b""
        return fd, end

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _truncated(self) -> bool:
        assert self._file is not None
        return os.fstat(self._file.fileno()).st_size < self._file.tell()

    def _rotated(self) -> bool:
        assert self._file is not None
        try:
            return os.stat(self.path).st_ino != os.fstat(self._file.fileno()).st_ino
        except FileNotFoundError:
            return False  # between two renames: it is back at the next look

    def _successor(self, inode: int) -> list[BinaryIO] | None:
        """The file that came after the one with this inode, open; when that one is gone
        (deleted unfinished), every file after it, open, the current one last ([]: none).
        None: it is the current file after all.
        Looked at under the writers' rotation lock, so that no rotation renames the files
        between the listing and the opening; each file is then held open while it is read,
        so later rotations rename what the reader has not reached, never what it reads."""
        for _ in range(_MAX_LOOKS):
            with rotation_lock(self.path, shared=True):
                found = self._look(inode)
            if found != "again":
                return None if found == "current" else found
        return []

    def _look(self, inode: int) -> list[BinaryIO] | Literal["current", "again"]:
        """One look for `_successor`: its answer, "current", or "again" (a writer between
        two renames, when the lock could not be had)."""
        files = log_files(self.home)  # oldest first, the current file last
        inodes = [_inode(path) for path in files]
        at = inodes.index(inode) + 1 if inode in inodes else 0
        if at >= len(files):
            return "current" if files and files[-1].name == LOG_NAME else "again"
        wanted = files[at : at + 1] if at else files  # gone: all of them, oldest first
        opened: list[BinaryIO] = []
        for path, expected in zip(wanted, inodes[at:], strict=False):
            try:
                file = path.open("rb")
            except FileNotFoundError:
                file = None
            if file is None or os.fstat(file.fileno()).st_ino != expected:
                for held in [*opened, *([file] if file else [])]:
                    held.close()
                return "again"  # renamed between the look and the open
            opened.append(file)
        return opened

    def _complete_lines(self, data: bytes) -> list[EventRecord]:
        data = self._partial + data
        *lines, self._partial = data.split(b"\n")
        return _parsed(lines)


def last_records(home: Path, count: int, wanted: Wanted, reader: LogReader) -> list[EventRecord]:
    """The last `count` records that are `wanted`, oldest first, read backwards from the end;
    `reader` is then at the current file's end, ready to follow."""
    current = reader.skip_to_end()
    found: list[EventRecord] = []  # newest first
    if count == 0:
        return found
    if current is None:
        return found
    _gather(_records_backwards(*current), count, wanted, found, reader.seen)
    older = _older_files(home, os.fstat(current[0]).st_ino)
    try:
        for fd in older:
            if len(found) >= count:
                break
            records = _records_backwards(fd, os.fstat(fd).st_size)
            _gather(records, count, wanted, found, reader.seen)
    finally:
        for fd in older:
            os.close(fd)
    found.reverse()
    return found


def _older_files(home: Path, inode: int) -> list[int]:
    """The rotated files older than the one with this inode (the file read at its end, which
    may have been rotated since), newest first, open: looked at under the writers' rotation
    lock, so a rotation meanwhile neither shows that file again nor hides one."""
    for _ in range(_MAX_LOOKS):
        with rotation_lock(log_dir(home) / LOG_NAME, shared=True):
            files = log_files(home)[::-1]  # newest first
            inodes = [_inode(path) for path in files]
            at = inodes.index(inode) + 1 if inode in inodes else 0
            if not at:  # deleted meanwhile: the rotated files are all there is before it
                at = 1 if files and files[0].name == LOG_NAME else 0
            files, inodes = files[at:], inodes[at:]
            opened: list[int] = []
            for path, expected in zip(files, inodes, strict=True):
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                except FileNotFoundError:
                    break
                opened.append(fd)
                if os.fstat(fd).st_ino != expected:
                    break
            else:
                return opened
            for fd in opened:  # renamed between the look and the open: look again
                os.close(fd)
    return []


def _gather(
    records: Iterator[EventRecord],
    count: int,
    wanted: Wanted,
    found: list[EventRecord],
    seen: Seen,
) -> None:
    for record in records:
        if len(found) >= count:
            return
        if wanted(record) and seen.first(record):
            found.append(record)


def _records_backwards(fd: int, end: int) -> Iterator[EventRecord]:
    """The records of the file before `end`, last first (`end` after a newline, or the
    file's size: a line cut short at the end is a record too, as `read_records` reads it)."""
    carry = b""
    position = end
    while position > 0:
        start = max(0, position - BLOCK)
        chunk = os.pread(fd, position - start, start)
        if len(chunk) < position - start:  # truncated meanwhile: nothing more to read
            return
        position = start
        *lines, carry_next = reversed((chunk + carry).split(b"\n"))
        carry = carry_next
        yield from _parsed(lines)
    yield from _parsed([carry])


def _after_last_newline(fd: int, size: int) -> int:
    """The offset after the file's last newline before `size` (0 when there is none)."""
    position = size
    while position > 0:
        start = max(0, position - BLOCK)
        at = os.pread(fd, position - start, start).rfind(b"\n")
        if at >= 0:
            return start + at + 1
        position = start
    return 0


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def _parsed(lines: list[bytes]) -> list[EventRecord]:
    records: list[EventRecord] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            records.append(parse_record(line.decode("utf-8", errors="replace")))
        except RecordError:
            continue  # not ours to judge here: a torn line of a process killed mid-write
    return records
