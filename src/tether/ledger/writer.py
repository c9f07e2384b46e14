"""`LedgerWriter`: the ledger's writes, off the sessions' loop.

A recorder hands it changes (`submit`: statements and their rows, made on the loop, which
costs microseconds) and returns at once: the loop never waits for SQLite, its file or its
lock. A thread of its own opens the ledger (the opening may wait for a lock too) and writes
what is waiting, everything queued in one transaction. When another process holds the
write lock it keeps the changes and tries again, however long the lock is held; they wait in
a bounded queue (`QUEUE_SIZE` changes), past which a change is dropped and counted. Any
other failure (a full disk, a damaged file) ends recording: said once, and the sessions go
on. `close` gives what is queued until a deadline; what was lost is said once.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from tether.file_locks import locks_work
from tether.ledger.db import LedgerError, LedgerFile
from tether.sqlite_files import is_busy

QUEUE_SIZE = 20_000
"""Changes kept while the ledger is locked (one a model call, with its tool calls)."""
ATTEMPT_MS = 1_000
"""How long one attempt waits for another process's lock (SQLite's busy timeout)."""
RETRY_S = 0.2
"""The pause between two attempts on a locked ledger."""
BATCH = 512
"""At most this many changes in one transaction."""
GATHER_S = 0.05
"""How long the thread lets changes gather once one comes: fewer, larger transactions, and
fewer times the session's thread hands it the interpreter (each hand-off can cost the
session a wait for a CPU on a busy machine)."""

_NO_LOCKS = (
    "the cost ledger {} cannot be locked: its file system takes no locks (a network mount "
    "without its lock service?)"
)

Statement = tuple[str, Iterable[tuple[object, ...]]]
"""SQL and its rows (`executemany`): a sequence, or rows made when first read (in the
writer's thread) and the same each time they are read again (a retry)."""


@dataclass(frozen=True)
class Change:
    """What one event adds to the ledger; `model_calls` how many model calls it records
    (what a loss is counted in)."""

    statements: tuple[Statement, ...]
    model_calls: int = 0


@dataclass
class Losses:
    """Model calls not recorded, and changes of any kind, by why."""

    full: int = 0
    """Dropped: the queue was full while the ledger was locked."""
    unsent: int = 0
    """Still queued when the deadline came at the end."""
    changes: int = 0

    def add(self, change: Change, *, full: bool) -> None:
        self.changes += 1
        if full:
            self.full += change.model_calls
        else:
            self.unsent += change.model_calls


class LedgerWriter:
    """Writes `submit`ted changes to the ledger at `path`, from its own thread; `warn` is
    told (once each) when the ledger cannot be used and what was lost."""

    def __init__(
        self,
        path: Path,
        *,
        warn: Callable[[str], None],
        queue_size: int = QUEUE_SIZE,
        attempt_ms: int = ATTEMPT_MS,
    ) -> None:
        self.path = path
        self._warn = warn
        self._queue_size = queue_size
        self._attempt_ms = attempt_ms
        self._cond = threading.Condition()
        self._pending: deque[Change] = deque()
        self._submitted = 0
        self._settled = 0
        """Changes written or lost so far, in the order they came."""
        self._closing = False
        self._flushing = False
        self._abandon = threading.Event()
        self._thread: threading.Thread | None = None
        self._locked_since: float | None = None
        self.failed: str | None = None
        """Why recording ended, once it has."""
        self.losses = Losses()

    def submit(self, change: Change) -> None:
        """Queue `change` and return; nothing is raised, nothing waited for."""
        with self._cond:
            if self.failed is not None:
                return  # said when it failed
            if len(self._pending) >= self._queue_size:
                self.losses.add(change, full=True)
                return
            self._pending.append(change)
            self._submitted += 1
            if len(self._pending) == 1:  # the thread may be waiting for it
                self._cond.notify()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="tether-ledger", daemon=True)
                self._thread.start()

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until what was submitted so far is written (or lost): whether it was in
        time."""
        with self._cond:
            target = self._submitted
            self._flushing = True
            self._cond.notify_all()
            try:
                return self._cond.wait_for(
                    lambda: self._settled >= target or self.failed is not None, timeout
                )
            finally:
                self._flushing = False

    def close(self, timeout: float = 10.0) -> None:
        """Write what is queued until `timeout` seconds from now; what could not be (the
        ledger locked all along) is counted; the losses are said once."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(max(0.0, deadline - time.monotonic()))
            self._abandon.set()  # a pause between attempts ends; no attempt after it
            self._thread.join(self._attempt_ms / 1000 + 1.0)
        with self._cond:
            while self._pending:
                self.losses.add(self._pending.popleft(), full=False)
        report = self.report()
        if report is not None:
            self._warn(report)

    def report(self) -> str | None:
        """What was lost, for the user, or None."""
        lost = self.losses
        if lost.changes == 0:
            return None
        why = "locked by another process"
        if self._locked_since is not None:
            why += f" for the last {time.monotonic() - self._locked_since:.0f} s"
        calls = lost.full + lost.unsent
        what = f"{calls} model calls' costs" if calls else f"{lost.changes} records"
        return f"the cost ledger {self.path} was {why}: {what} not recorded"

    def _run(self) -> None:
        ledger: LedgerFile | None = None
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._pending) or self._closing)
                if not self._pending:
                    break
                if not self._closing:  # let what follows gather (a flush or close ends it)
                    self._cond.wait_for(lambda: self._closing or self._flushing, GATHER_S)
                batch = [self._pending[i] for i in range(min(BATCH, len(self._pending)))]
            try:
                if ledger is None or ledger.identity.changed() is not None:
                    if ledger is not None:  # moved away or replaced: the new one from here on
                        ledger.close()
                    ledger = None
                    ledger = LedgerFile(self.path, busy_timeout_ms=self._attempt_ms)
                with ledger.transaction() as db:
                    for change in batch:
                        for sql, rows in change.statements:
                            db.executemany(sql, rows)
            except (sqlite3.Error, LedgerError) as e:
                if _busy(e):
                    if self._locked_since is None:
                        if not locks_work(self.path.parent):
                            # SQLite says "busy" for a lock it cannot take at all.
                            self._fail(LedgerError(_NO_LOCKS.format(self.path)))
                            break
                        self._locked_since = time.monotonic()
                    if self._abandon.wait(RETRY_S):
                        break
                    continue
                self._fail(e, ledger)
                break
            except UnicodeEncodeError as e:  # a bug here, never the end of a session
                self._fail(LedgerError(f"the cost ledger could not take a value ({e.reason})"))
                break
            self._locked_since = None
            with self._cond:
                for _ in batch:
                    self._pending.popleft()
                self._settled += len(batch)
                self._cond.notify_all()
        if ledger is not None:
            ledger.close()

    def _fail(self, e: Exception, ledger: LedgerFile | None = None) -> None:
        if ledger is None:  # not opened: it says why itself
            why = f"{e}; this session's costs are not recorded"
        else:
            why = f"{ledger.unusable(e)}; this session's costs are no longer recorded"
        with self._cond:
            self.failed = why
            self._settled += len(self._pending)
            self._pending.clear()
            self._cond.notify_all()
        self._warn(why)


def _busy(e: Exception) -> bool:
    """Another process holds the lock: on opening (a `LedgerError` that says so) or writing."""
    if isinstance(e, sqlite3.Error):
        return is_busy(e)
    return isinstance(e, LedgerError) and e.busy
