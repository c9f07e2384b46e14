"""What every task store does the same way: each operation is one of the graph's rules
(`task_graph`) run inside one transaction of the store's own (`_run`). A store says only how a
transaction is made; SQLite and Redis differ in that, in listing, claiming the next task and
reaping expired leases. With an outbox (`keep_events`), each change's event is written in the
transaction that makes it (`task_outbox`); an event once delivered (`events_delivered`) leaves
the outbox in the next transaction this store makes, not in one of its own: a process killed
before that has it delivered again by another, under its id, which readers drop."""

from __future__ import annotations

import contextlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TypeVar

from tether.protocol.team_events import TaskChange, TaskChanged
from tether.store import task_graph as graph
from tether.store.task_graph import BoardTx, TaskChanges
from tether.store.task_outbox import Outbox, OutboxEvent
from tether.store.task_records import DEFAULT_LEASE_S, Claim, NewTask, StoreUnavailable, Task

T = TypeVar("T")


class GraphStore(ABC):
    """The operations of `TaskStore` that are one rule of the graph in one transaction."""

    team: str
    _outbox: Outbox | None = None
    _made: list[TaskChanged]
    _delivered: dict[str, None]
    """Events delivered and still in the outbox, by id (in order): dropped by the next
    transaction."""
    _outbox_lock: threading.Lock
    _reached: bool
    """Whether the store's last step reached it (a store out of reach is not tried at close)."""

    def _start_outbox(self) -> None:
        self._made, self._delivered, self._outbox_lock = [], {}, threading.Lock()
        self._reached = True

    @abstractmethod
    def _transact(self, step: Callable[[BoardTx], T]) -> T:
        """`step` inside one transaction, retried or refused as the store's backend needs."""

    @abstractmethod
    def pending_events(self, limit: int = 1000) -> list[OutboxEvent]:
        """The outbox's events not delivered yet, oldest first."""

    def keep_events(self, by: str, writer: str) -> None:
        """From now on each change made through this store writes its event (made by `by`)
        to the outbox in its own transaction, as written by `writer` (`writer_mark`); the
        events of committed changes are then `take_made`'s."""
        self._outbox = Outbox(by, writer)

    def take_made(self) -> list[TaskChanged]:
        """The events of the changes committed since the last call, oldest first."""
        with self._outbox_lock:
            made, self._made = self._made, []
        return made

    def events_delivered(self, ids: list[str]) -> None:
        """These events (by `event_id`) were delivered: they leave the outbox in the next
        transaction this store makes (`flush_delivered` makes one for them alone)."""
        with self._outbox_lock:
            self._delivered.update(dict.fromkeys(ids))

    def flush_delivered(self) -> None:
        """Take the delivered events out of the outbox now, in a transaction of their own
        (a process going idle or closing its store): `StoreUnavailable` leaves them for the
        next."""
        if self._to_drop():
            self._run(lambda _: None)

    def _to_drop(self) -> list[str]:
        with self._outbox_lock:
            return list(self._delivered)

    def _committed(self, dropped: list[str], events: list[TaskChanged]) -> None:
        """A step committed: the events it dropped are out of the outbox, those it made in."""
        with self._outbox_lock:
            for event_id in dropped:
                self._delivered.pop(event_id, None)
            self._made.extend(events)

    def _run(self, step: Callable[[BoardTx], T]) -> T:
        drop = self._to_drop()

        def run(tx: BoardTx) -> tuple[T, list[TaskChanged]]:
            if drop:
                tx.drop_events(drop)
            return step(tx), tx.events

        try:
            result, events = self._transact(run)
        except StoreUnavailable:
            self._reached = False
            raise
        self._reached = True
        self._committed(drop, events)
        return result

    def _flush_at_close(self) -> None:
        """Before the store closes: the delivered events out of the outbox, unless the store
        was out of reach at its last step (a process that stops during an outage does not wait
        for it). Left there, another process delivers them again, and readers drop them by id."""
        if self._reached:
            with contextlib.suppress(StoreUnavailable):
                self.flush_delivered()

    def _told(self, tx: BoardTx, change: TaskChange, task: Task) -> Task:
        """`task`, its `change` written to the outbox in `tx` when events are kept."""
        if self._outbox is not None:
            tx.put_event(self._outbox.event(tx.team, change, task), self._outbox.writer)
        return task

    def _reaped(self, tx: BoardTx, tasks: list[Task]) -> list[Task]:
        for task in tasks:
            self._told(tx, "lease_expired", task)
        return tasks

    def create(self, new: NewTask) -> Task:
        return self._run(lambda tx: self._told(tx, "created", graph.create_task(tx, new)))

    def get(self, task_id: str) -> Task:
        return self._run(lambda tx: with_blocks(tx, graph.require(tx, task_id)))

    def update(self, task_id: str, changes: TaskChanges) -> Task:
        return self._run(lambda tx: graph.update_task(tx, task_id, changes))

    def claim(self, task_id: str, owner: str, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        def step(tx: BoardTx) -> Claim:
            claim = graph.claim_task(tx, task_id, owner, lease_s)
            self._told(tx, "claimed", claim.task)
            return claim

        return self._run(step)

    def heartbeat(self, claim: Claim, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        def step(tx: BoardTx) -> Claim:
            renewed = graph.heartbeat(tx, claim, lease_s)
            if claim.task.status != "in_progress":  # its lease had run out: it holds it again
                self._told(tx, "claimed", renewed.task)
            return renewed

        return self._run(step)

    def release(self, claim: Claim, *, cost_usd: float = 0.0) -> Task:
        return self._run(lambda tx: self._told(tx, "released", graph.release(tx, claim, cost_usd)))

    def complete(self, claim: Claim, result: str, *, cost_usd: float = 0.0) -> Task:
        return self._run(
            lambda tx: self._told(
                tx, "completed", graph.finish(tx, claim, ok=True, text=result, cost_usd=cost_usd)
            )
        )

    def fail(self, claim: Claim, error: str, *, cost_usd: float = 0.0) -> Task:
        return self._run(
            lambda tx: self._told(
                tx, "failed", graph.finish(tx, claim, ok=False, text=error, cost_usd=cost_usd)
            )
        )

    def retry(self, task_id: str) -> Task:
        return self._run(lambda tx: self._told(tx, "retried", graph.retry_task(tx, task_id)))

    def remove(self, task_id: str) -> Task:
        return self._run(lambda tx: self._told(tx, "removed", graph.remove_task(tx, task_id)))


def with_blocks(tx: BoardTx, task: Task) -> Task:
    """`task` with the ids of the tasks that depend on it (`blocks`), as Claude Code shows."""
    task.blocks = sorted(tx.dependents(task.id), key=int)
    return task
