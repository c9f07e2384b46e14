"""Reading the event log: the last records that match, and what is added after, across
rotations (`tether events tail [-f]`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from tether.observe.records import (
    LOG_NAME,
    EventRecord,
    RecordError,
    log_dir,
    log_files,
    parse_record,
)

Wanted = Callable[[EventRecord], bool]


class LogReader:
    """Reads the log's current file from where it last stopped; when the file is rotated
    away it finishes the old one, then starts the new one from its beginning."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = log_dir(home) / LOG_NAME
        self._file: BinaryIO | None = None
        self._partial = b""

    def read_new(self) -> list[EventRecord]:
        """The records added since the last call (all of the current file at the first)."""
        records: list[EventRecord] = []
        while True:
            if self._file is None:
                try:
                    self._file = self.path.open("rb")
                except FileNotFoundError:
                    return records
            records.extend(self._complete_lines(self._file.read()))
            if not self._rotated():
                return records
            records.extend(self._complete_lines(self._file.read()))  # written before it moved
            records.extend(self._rotated_since(os.fstat(self._file.fileno()).st_ino))
            self._file.close()
            self._file, self._partial = None, b""

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _rotated(self) -> bool:
        assert self._file is not None
        try:
            return os.stat(self.path).st_ino != os.fstat(self._file.fileno()).st_ino
        except FileNotFoundError:
            return False  # between two renames: it is back at the next look

    def _rotated_since(self, inode: int) -> list[EventRecord]:
        """The records of the files rotated after the one with this inode (several rotations
        may come between two reads); all the rotated files when that one is deleted."""
        rotated = [p for p in log_files(self.home) if p.name != LOG_NAME]  # oldest first
        later: list[Path] = rotated
        for i, path in enumerate(rotated):
            try:
                if os.stat(path).st_ino == inode:
                    later = rotated[i + 1 :]
                    break
            except FileNotFoundError:
                continue
        records: list[EventRecord] = []
        for path in later:
            try:
                records.extend(_parsed(path.read_bytes().split(b"\n")))
            except FileNotFoundError:
                continue
        return records

    def _complete_lines(self, data: bytes) -> list[EventRecord]:
        data = self._partial + data
        *lines, self._partial = data.split(b"\n")
        return _parsed(lines)


def last_records(home: Path, count: int, wanted: Wanted, reader: LogReader) -> list[EventRecord]:
    """The last `count` records that are `wanted`, oldest first; `reader` (at the start of
    the current file) is then at its end, ready to follow."""
    found = [r for r in reader.read_new() if wanted(r)]
    rotated = [p for p in reversed(log_files(home)) if p.name != LOG_NAME]  # newest first
    for path in rotated:
        if len(found) >= count:
            break
        try:
            older = _parsed(path.read_bytes().split(b"\n"))
        except FileNotFoundError:
            continue
        found = [r for r in older if wanted(r)] + found
    return found[-count:] if count else []


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
