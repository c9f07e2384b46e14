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


class Log:
    """The log of one try: a writer whose files hold `PER_FILE` records each, what it wrote,
    and a follower."""

    def __init__(self, home: Path) -> None:
        line = len(record(0).to_json()) + 1
        self.home = home
        self.writer = AppendFile(
            log_dir(home) / "events.jsonl", max_bytes=PER_FILE * line, keep=100
        )
        self.written: list[EventRecord] = []
        self.reader = LogReader(home)

    def write(self, *numbers: int) -> None:
        for n in numbers:
            self.writer.append([record(n).to_json()])
            self.written.append(record(n))

    def rotating_at(
        self, k: int, monkeypatch: pytest.MonkeyPatch, read: Callable[[], list[EventRecord]]
    ) -> tuple[list[EventRecord], bool]:
        """`read()`, the writer filling the current file and rotating it at its k-th look
        (5 ends the file, 6 starts the next); whether it made k looks."""
        injected = RotationAt(k, log_dir(self.home) / ".events.jsonl.lock", self._rotate)
        with monkeypatch.context() as patch:
            patch.setattr(os, "stat", injected.wrap(os.stat))
            patch.setattr(os, "fstat", injected.wrap(os.fstat))
            injected.armed = True
            found = read()
            injected.armed = False
        if not injected.fired:
            self._rotate()
        return found, injected.looks >= k

    def _rotate(self) -> None:
        self.write(5, 6, 7)

    def finish(self, read: list[EventRecord], k: int) -> None:
        """Follow to the end (one more record after); every record read once, in order."""
        read += self.reader.read_new()
        self.write(8)
        read += self.reader.read_new()
        self.reader.close()
        self.writer.close()
        assert len(log_files(self.home)) == 3
        assert [r.payload["n"] for r in read] == [r.payload["n"] for r in self.written], k


def _follow_with_rotation_at(k: int, home: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """The follower finishes a rotated file and moves on to the next, which is rotated in
    turn at its k-th look."""
    log = Log(home)
    log.write(0, 1, 2)  # the first file, full
    read = log.reader.read_new()
    log.write(3, 4)  # rotated: the follower is still on the first file, now events.1
    assert len(log_files(home)) == 2
    found, looked = log.rotating_at(k, monkeypatch, log.reader.read_new)
    log.finish(read + found, k)
    return looked


def _tail_with_rotation_at(k: int, home: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """`tail -f`: the last records, with a rotation at the k-th look while they are read,
    then what follows."""
    log = Log(home)
    log.write(0, 1, 2, 3, 4)  # a rotated file, and the current one with room for one more
    found, looked = log.rotating_at(
        k, monkeypatch, lambda: last_records(home, 100, lambda _: True, log.reader)
    )
    log.finish(found, k)
    return looked


@pytest.mark.parametrize(
    ("scenario", "moves"),
    [(_follow_with_rotation_at, 5), (_tail_with_rotation_at, 3)],
    ids=["following", "last-records"],
)
def test_a_rotation_at_any_step_skips_and_doubles_nothing(
    scenario: Callable[[int, Path, pytest.MonkeyPatch], bool],
    moves: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    k = 1
    while scenario(k, tmp_path / f"home-{k}", monkeypatch):
        k += 1
    assert k > moves  # the reading took several looks, each tried
