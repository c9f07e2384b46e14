"""What every task store does the same way: each operation is one of the graph's rules
(`task_graph`) run inside one transaction of the store's own (`_run`). A store says only how a
transaction is made; SQLite and Redis differ in that, in listing, claiming the next task and
reaping expired leases. With an outbox (`keep_events`), each change's event is written in the
transaction that makes it (`task_outbox`)."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TypeVar

from tether.protocol.team_events import TaskChange, TaskChanged
from tether.store import task_graph as graph
from tether.store.task_graph import BoardTx, TaskChanges
from tether.store.task_outbox import Outbox, OutboxEvent
from tether.store.task_records import DEFAULT_LEASE_S, Claim, NewTask, Task

T = TypeVar("T")


class GraphStore(ABC):
    """The operations of `TaskStore` that are one rule of the graph in one transaction."""

    team: str
    _outbox: Outbox | None = None
    _made: list[TaskChanged]
    _made_lock: threading.Lock

    def _start_outbox(self) -> None:
        self._made, self._made_lock = [], threading.Lock()

    @abstractmethod
    def _transact(self, step: Callable[[BoardTx], T]) -> T:
        """`step` inside one transaction, retried or refused as the store's backend needs."""

    @abstractmethod
    def pending_events(self, limit: int = 1000) -> list[OutboxEvent]:
        """The outbox's events not delivered yet, oldest first."""

    @abstractmethod
    def events_delivered(self, ids: list[str]) -> None:
        """Take these events (by `event_id`) out of the outbox: they were delivered."""

    def keep_events(self, by: str, writer: str) -> None:
        """From now on each change made through this store writes its event (made by `by`)
        to the outbox in its own transaction, as written by `writer` (`writer_mark`); the
        events of committed changes are then `take_made`'s."""
        self._outbox = Outbox(by, writer)

    def take_made(self) -> list[TaskChanged]:
        """The events of the changes committed since the last call, oldest first."""
        with self._made_lock:
            made, self._made = self._made, []
        return made

    def _run(self, step: Callable[[BoardTx], T]) -> T:
        result, events = self._transact(lambda tx: (step(tx), tx.events))
        if events:  # committed: the outbox holds them now
            with self._made_lock:
                self._made.extend(events)
        return result

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
