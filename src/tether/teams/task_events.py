"""A task store that tells of each lifecycle change it makes (`TaskChanged`: created, claimed,
completed, failed, released, lease_expired, retried, removed), whoever calls it: a session's
board (its agent's task tools), a worker and `tether tasks` alike. The events go to the
event log, webhooks and telemetry of the session or process that made the change
(`tether.observe`), so a webhook sees every task created, taken, finished or lost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tether.protocol import Record
from tether.protocol.team_events import TaskChange, TaskChanged
from tether.store.task_graph import TaskChanges
from tether.store.task_records import DEFAULT_LEASE_S, DEFAULT_MAX_ATTEMPTS, Claim, NewTask, Task
from tether.store.task_store import TaskStore

Emit = Callable[[Record], None]


@dataclass
class ObservedTasks:
    """`store` (a `TaskStore`), each change it records told to `emit` once it is recorded
    (a refused change tells nothing); `by`: who makes the changes."""

    inner: TaskStore
    by: str
    emit: Emit
    team: str = field(init=False)
    url: str = field(init=False)

    def __post_init__(self) -> None:
        self.team, self.url = self.inner.team, self.inner.url

    def _told(self, change: TaskChange, task: Task) -> Task:
        self.emit(
            TaskChanged(
                team=self.inner.team,
                task_id=task.id,
                change=change,
                by=self.by,
                subject=task.subject,
                status=task.status,
                owner=task.owner,
                attempts=task.attempts,
                cost_usd=task.cost_usd,
            )
        )
        return task

    def create(self, new: NewTask) -> Task:
        return self._told("created", self.inner.create(new))

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
        expired: list[Task] = []
        try:
            claim = self.inner.claim_next(
                owner, lease_s=lease_s, max_attempts=max_attempts, reaped=expired
            )
        finally:  # what was reaped is recorded, even when the claim then failed
            for task in expired:
                self._told("lease_expired", task)
            if reaped is not None:
                reaped.extend(expired)
        if claim is not None:
            self._told("claimed", claim.task)
        return claim

    def claim(self, task_id: str, owner: str, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        claim = self.inner.claim(task_id, owner, lease_s=lease_s)
        self._told("claimed", claim.task)
        return claim

    def heartbeat(self, claim: Claim, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        renewed = self.inner.heartbeat(claim, lease_s=lease_s)
        if claim.task.status != "in_progress":  # its lease had run out: it holds it again
            self._told("claimed", renewed.task)
        return renewed

    def release(self, claim: Claim, *, cost_usd: float = 0.0) -> Task:
        return self._told("released", self.inner.release(claim, cost_usd=cost_usd))

    def complete(self, claim: Claim, result: str, *, cost_usd: float = 0.0) -> Task:
        return self._told("completed", self.inner.complete(claim, result, cost_usd=cost_usd))

    def fail(self, claim: Claim, error: str, *, cost_usd: float = 0.0) -> Task:
        return self._told("failed", self.inner.fail(claim, error, cost_usd=cost_usd))

    def retry(self, task_id: str) -> Task:
        return self._told("retried", self.inner.retry(task_id))

    def remove(self, task_id: str) -> Task:
        return self._told("removed", self.inner.remove(task_id))

    def reap_expired(self, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[Task]:
        reaped = self.inner.reap_expired(max_attempts=max_attempts)
        for task in reaped:
            self._told("lease_expired", task)
        return reaped

    def close(self) -> None:
        self.inner.close()
