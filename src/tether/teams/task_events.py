"""A task store that tells of each lifecycle change it makes (`TaskChanged`: created, claimed,
completed, failed, released, lease_expired, retried, removed), whoever calls it: a session's
board (its agent's task tools), a worker and `tether tasks` alike. The events go to the
event log, webhooks and telemetry of the session or process that made the change
(`tether.observe`), so a webhook sees every task created, taken, finished or lost.

An outbox, not a second write: the store writes each change's event in the change's own
transaction (`tether.store.task_outbox`); this process delivers it once the step returns, and
the store takes it out of the outbox in its next transaction (the next change's, in the same
commit; before this process waits for the board, or closes it, one of its own). A process
killed between the two leaves it there, and the next process to open the board (its own run
started again, or any other) delivers it: at once when the writer was a process of this
machine that no longer runs, after `ABANDONED_AFTER_S` when it ran on another. At least once:
a process killed after telling and before the next transaction has it told again, under the
same `event_id`, which readers of the event log drop (`tether.observe.records.Seen`)."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from tether.protocol import Record
from tether.protocol.team_events import TaskChanged
from tether.store.task_graph import TaskChanges
from tether.store.task_outbox import OutboxEvent, parse_writer, writer_mark
from tether.store.task_records import (
    DEFAULT_LEASE_S,
    DEFAULT_MAX_ATTEMPTS,
    Claim,
    NewTask,
    StoreUnavailable,
    Task,
)
from tether.store.task_store import TaskStore
from tether.teams.claims import process_start, runs_as

Emit = Callable[[Record], None]

ABANDONED_AFTER_S = DEFAULT_LEASE_S
"""An event another machine's process left in the outbox is delivered by another after this
long (by the store's clock): that process is taken to be gone, as its claims' leases are."""


def abandoned(left: OutboxEvent, writer: str) -> bool:
    """Whether an event in the outbox is left to others by its writer: not this process's
    (`writer`), and written by a process of this machine that no longer runs, or by one of
    another machine (or no known writer) `ABANDONED_AFTER_S` ago or more."""
    if left.writer == writer:
        return False
    parsed = parse_writer(left.writer)
    if parsed is not None and parsed[1] == socket.gethostname():
        return not runs_as(parsed[0], parsed[2])
    return left.age_s >= ABANDONED_AFTER_S


@dataclass
class ObservedTasks:
    """`store` (a `TaskStore`), each change it records told to `emit` once it is recorded
    (a refused change tells nothing); `by`: who makes the changes. Opening it delivers what
    killed processes left undelivered in the board's outbox (`deliver_left`)."""

    inner: TaskStore
    by: str
    emit: Emit
    team: str = field(init=False)
    url: str = field(init=False)
    writer: str = field(init=False)

    def __post_init__(self) -> None:
        self.team, self.url = self.inner.team, self.inner.url
        self.writer = writer_mark(process_start(os.getpid()))
        self.inner.keep_events(self.by, self.writer)
        self.deliver_left()

    def deliver_left(self) -> int:
        """Tell the events others left in the outbox (`abandoned`), then take them out: how
        many. A store out of reach tells none now (the next process to open it will)."""
        try:
            left = [e for e in self.inner.pending_events() if abandoned(e, self.writer)]
        except StoreUnavailable:
            return 0
        self._tell([e.event for e in left])
        return len(left)

    def _deliver(self) -> None:
        """Tell the events of the changes just committed, then take them out of the outbox."""
        self._tell(self.inner.take_made())

    def _tell(self, events: list[TaskChanged]) -> None:
        for event in events:
            self.emit(event)
        self.inner.events_delivered([e.event_id for e in events if e.event_id is not None])

    def create(self, new: NewTask) -> Task:
        try:
            return self.inner.create(new)
        finally:
            self._deliver()

    def get(self, task_id: str) -> Task:
        return self.inner.get(task_id)

    def list(self) -> list[Task]:
        return self.inner.list()

    def update(self, task_id: str, changes: TaskChanges) -> Task:
        return self.inner.update(task_id, changes)

    def claim_next(
        self,
        owner: str,
        *,
        lease_s: float = DEFAULT_LEASE_S,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        reaped: list[Task] | None = None,
    ) -> Claim | None:
        try:  # what was reaped is told, even when the claim then failed
            return self.inner.claim_next(
                owner, lease_s=lease_s, max_attempts=max_attempts, reaped=reaped
            )
        finally:
            self._deliver()

    def claim(self, task_id: str, owner: str, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        try:
            return self.inner.claim(task_id, owner, lease_s=lease_s)
        finally:
            self._deliver()

    def heartbeat(self, claim: Claim, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        try:
            return self.inner.heartbeat(claim, lease_s=lease_s)
        finally:
            self._deliver()

    def release(self, claim: Claim, *, cost_usd: float = 0.0) -> Task:
        try:
            return self.inner.release(claim, cost_usd=cost_usd)
        finally:
            self._deliver()

    def complete(self, claim: Claim, result: str, *, cost_usd: float = 0.0) -> Task:
        try:
            return self.inner.complete(claim, result, cost_usd=cost_usd)
        finally:
            self._deliver()

    def fail(self, claim: Claim, error: str, *, cost_usd: float = 0.0) -> Task:
        try:
            return self.inner.fail(claim, error, cost_usd=cost_usd)
        finally:
            self._deliver()

    def retry(self, task_id: str) -> Task:
        try:
            return self.inner.retry(task_id)
        finally:
            self._deliver()

    def remove(self, task_id: str) -> Task:
        try:
            return self.inner.remove(task_id)
        finally:
            self._deliver()

    def reap_expired(self, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[Task]:
        try:
            return self.inner.reap_expired(max_attempts=max_attempts)
        finally:
            self._deliver()

    def keep_events(self, by: str, writer: str) -> None:
        self.inner.keep_events(by, writer)

    def take_made(self) -> list[TaskChanged]:
        return self.inner.take_made()

    def pending_events(self, limit: int = 1000) -> list[OutboxEvent]:
        return self.inner.pending_events(limit)

    def events_delivered(self, ids: list[str]) -> None:
        self.inner.events_delivered(ids)

    def flush_delivered(self) -> None:
        self.inner.flush_delivered()

    def change_mark(self) -> str:
        return self.inner.change_mark()

    def wait_change(self, mark: str, timeout_s: float) -> bool:
        """What was delivered leaves the outbox first: a process that waits makes no
        transaction that would carry it meanwhile."""
        with contextlib.suppress(StoreUnavailable):
            self.inner.flush_delivered()
        return self.inner.wait_change(mark, timeout_s)

    def close(self) -> None:
        self.inner.close()
