"""What every task store does the same way: each operation is one of the graph's rules
(`task_graph`) run inside one transaction of the store's own (`_run`). A store says only how a
transaction is made; SQLite and Redis differ in that, in listing, claiming the next task and
reaping expired leases."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TypeVar

from tether.store import task_graph as graph
from tether.store.task_graph import BoardTx, TaskChanges
from tether.store.task_records import DEFAULT_LEASE_S, Claim, NewTask, Task

T = TypeVar("T")


class GraphStore(ABC):
    """The operations of `TaskStore` that are one rule of the graph in one transaction."""

    @abstractmethod
    def _run(self, step: Callable[[BoardTx], T]) -> T:
        """`step` inside one transaction, retried or refused as the store's backend needs."""

    def create(self, new: NewTask) -> Task:
        return self._run(lambda tx: graph.create_task(tx, new))

    def get(self, task_id: str) -> Task:
        return self._run(lambda tx: with_blocks(tx, graph.require(tx, task_id)))

    def update(self, task_id: str, changes: TaskChanges) -> Task:
        return self._run(lambda tx: graph.update_task(tx, task_id, changes))

    def claim(self, task_id: str, owner: str, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        return self._run(lambda tx: graph.claim_task(tx, task_id, owner, lease_s))

    def heartbeat(self, claim: Claim, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        return self._run(lambda tx: graph.heartbeat(tx, claim, lease_s))

    def release(self, claim: Claim, *, cost_usd: float = 0.0) -> Task:
        return self._run(lambda tx: graph.release(tx, claim, cost_usd))

    def complete(self, claim: Claim, result: str, *, cost_usd: float = 0.0) -> Task:
        return self._run(
            lambda tx: graph.finish(tx, claim, ok=True, text=result, cost_usd=cost_usd)
        )

    def fail(self, claim: Claim, error: str, *, cost_usd: float = 0.0) -> Task:
        return self._run(
            lambda tx: graph.finish(tx, claim, ok=False, text=error, cost_usd=cost_usd)
        )

    def retry(self, task_id: str) -> Task:
        return self._run(lambda tx: graph.retry_task(tx, task_id))

    def remove(self, task_id: str) -> Task:
        return self._run(lambda tx: graph.remove_task(tx, task_id))


def with_blocks(tx: BoardTx, task: Task) -> Task:
    """`task` with the ids of the tasks that depend on it (`blocks`), as Claude Code shows."""
    task.blocks = sorted(tx.dependents(task.id), key=int)
    return task
