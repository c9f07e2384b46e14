"""A follower (`tether events tail -f`'s `LogReader`) moving from a rotated file to the one
after it while the writer rotates again: every record once, in order, whatever the moment.

The moment is chosen, not hoped for: the writer rotates after the follower's k-th look at the
file system (`os.stat`, `os.fstat`: how it tells which file is which) within one read, for
every k that read makes, so each step of its move is the one the rotation comes at."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tether.observe.log_file import AppendFile
from tether.observe.reading import LogReader, last_records
from tether.observe.records import EventRecord, log_dir, log_files

PER_FILE = 3


def record(n: int) -> EventRecord:
    return EventRecord("s", "main", None, f"2026-01-01T00:00:{n:02d}.000000Z", "notice", {"n": n})


class RotationAt:
    """Runs `rotate` once, at the k-th `os.stat`/`os.fstat` made while armed, or, when the
    follower then holds the rotation lock (a writer would wait for it), at its first look
    after letting it go."""

    def __init__(self, k: int, lock: Path, rotate: Callable[[], None]) -> None:
        self.k = k
        self.lock = lock
        self.rotate = rotate
        self.looks = 0
        self.armed = False
        self.fired = False

    def wrap(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def look(*args: Any, **kwargs: Any) -> Any:
            result = real(*args, **kwargs)
            if self.armed and not self.fired:
                self.looks += 1
                if self.looks >= self.k:
                    self.armed = False  # the writer's own looks are not the follower's
                    self.fired = self._lock_free()
                    if self.fired:
                        self.rotate()
                    self.armed = not self.fired
            return result

        return look

    def _lock_free(self) -> bool:
        if not self.lock.exists():
            return True
        fd = os.open(self.lock, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(fd)  # releases it
        return True


def _follow_with_rotation_at(k: int, home: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether the follower made k looks in its move; asserts what it read."""
    line = len(record(0).to_json()) + 1
    writer = AppendFile(log_dir(home) / "events.jsonl", max_bytes=PER_FILE * line, keep=100)
    written: list[EventRecord] = []

    def write(*numbers: int) -> None:
        for n in numbers:
            writer.append([record(n).to_json()])
            written.append(record(n))

    reader = LogReader(home)
    try:
        write(0, 1, 2)  # the first file, full
        read = reader.read_new()
        write(3, 4)  # rotated: the follower is still on the first file, now events.1
        assert len(log_files(home)) == 2

        # The follower finishes the first file and moves on; the writer fills the second and
        # rotates it too at the follower's k-th look (5 ends the second file, 6 starts a third).
        lock = log_dir(home) / ".events.jsonl.lock"
        injected = RotationAt(k, lock, lambda: write(5, 6, 7))
        with monkeypatch.context() as patch:
            patch.setattr(os, "stat", injected.wrap(os.stat))
            patch.setattr(os, "fstat", injected.wrap(os.fstat))
            injected.armed = True
            read += reader.read_new()
            injected.armed = False
        if not injected.fired:
            write(5, 6, 7)
        read += reader.read_new()
        write(8)
        read += reader.read_new()
    finally:
        reader.close()
        writer.close()
    assert len(log_files(home)) == 3
    assert [r.payload["n"] for r in read] == [r.payload["n"] for r in written], f"look {k}"
    return injected.looks >= k


def test_a_rotation_at_any_step_of_a_follower_s_move_skips_and_doubles_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    k = 1
    while _follow_with_rotation_at(k, tmp_path / f"home-{k}", monkeypatch):
        k += 1
    assert k > 5  # the move took several looks, each tried


def _tail_with_rotation_at(k: int, home: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """`tail -f`: the last records, then what follows, with a rotation at the k-th look while
    the last records are read; asserts what was shown."""
    line = len(record(0).to_json()) + 1
    writer = AppendFile(log_dir(home) / "events.jsonl", max_bytes=PER_FILE * line, keep=100)
    written: list[EventRecord] = []

    def write(*numbers: int) -> None:
        for n in numbers:
            writer.append([record(n).to_json()])
            written.append(record(n))

    reader = LogReader(home)
    try:
        write(0, 1, 2, 3, 4)  # a rotated file, and the current one with room for one more
        injected = RotationAt(k, log_dir(home) / ".events.jsonl.lock", lambda: write(5, 6, 7))
        with monkeypatch.context() as patch:
            patch.setattr(os, "stat", injected.wrap(os.stat))
            patch.setattr(os, "fstat", injected.wrap(os.fstat))
            injected.armed = True
            read = last_records(home, 100, lambda _: True, reader)
            injected.armed = False
        if not injected.fired:
            write(5, 6, 7)
        read += reader.read_new()
        write(8)
        read += reader.read_new()
    finally:
        reader.close()
        writer.close()
    assert [r.payload["n"] for r in read] == [r.payload["n"] for r in written], f"look {k}"
    return injected.looks >= k


def test_a_rotation_while_the_last_records_are_read_shows_each_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    k = 1
    while _tail_with_rotation_at(k, tmp_path / f"home-{k}", monkeypatch):
        k += 1
    assert k > 3
