"""The rules of a team's task graph, written once for every store.

Each function works inside one transaction of a store (`BoardTx`): SQLite's `BEGIN IMMEDIATE`,
Redis's WATCH/MULTI over exactly the keys read. The stores only say how to read and write a
task; what a change means (a dependency that must exist, a cycle refused, a failure blocking
what depends on it, a retry unblocking it, a fenced completion) is decided here.
"""

from __future__ import annotations

from collections import deque
from datetime import UTC, datetime
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol.team_events import TaskChanged
from tether.store.task_records import (
    Claim,
    LeaseLost,
    NewTask,
    Priority,
    Task,
    TaskNotFound,
    TaskStoreError,
)


class BoardTx(Protocol):
    """One transaction on one team's board."""

    team: str
    now: float
    """The store's clock (Redis's server time: one clock for every machine)."""

    def get(self, task_id: str) -> Task | None: ...
    def dependents(self, task_id: str) -> list[str]: ...
    def save(self, task: Task, *, ready: bool) -> None:
        """Write the task; `ready`: pending with every dependency completed (claimable)."""
        ...

    def delete(self, task: Task) -> None: ...
    def next_id(self) -> str: ...
    def next_fence(self) -> int: ...

    events: list[TaskChanged]
    """The events `put_event` wrote in this transaction."""

    def put_event(self, event: TaskChanged, writer: str) -> None:
        """Write `event` to the board's outbox in this transaction, as `writer`'s."""
        ...

    def drop_events(self, ids: list[str]) -> None:
        """Take these delivered events (by `event_id`) out of the outbox in this transaction."""
        ...


class TaskChanges(BaseModel):
    """What `TaskUpdate` (or a person) may change besides the status."""

    model_config = ConfigDict(defer_build=True)

    subject: str | None = None
    description: str | None = None
    active_form: str | None = None
    priority: Priority | None = None
    owner: str | None = None
    """An empty string clears it."""
    metadata: dict[str, Any] | None = None
    """Merged into the task's; a key set to None is removed."""
    add_depends_on: list[str] = Field(default_factory=list[str])
    add_blocks: list[str] = Field(default_factory=list[str])
    add_cost_usd: float = Field(default=0.0, ge=0.0)
    """Spend to add to the task's: a run whose claim was lost keeps its cost on the task."""


def stamp(when: float) -> str:
    """A time for messages, in UTC to the second."""
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def require(tx: BoardTx, task_id: str) -> Task:
    task = tx.get(task_id)
    if task is None:
        raise TaskNotFound(task_id, tx.team)
    return task


def create_task(tx: BoardTx, new: NewTask) -> Task:
    """A new task; a dependency that does not exist is refused (it would block its task
    forever). A new task cannot close a cycle: nothing depends on it yet."""
    _check_subject(new.subject)
    for dep in dict.fromkeys(new.depends_on):
        if tx.get(dep) is None:
            raise TaskStoreError(f"unknown dependency #{dep}: no such task in team {tx.team!r}")
    task = Task(
        id=tx.next_id(),
        subject=new.subject,
        description=new.description,
        active_form=new.active_form,
        priority=new.priority,
        owner=new.owner or None,
        depends_on=list(dict.fromkeys(new.depends_on)),
        metadata=new.metadata,
        created_at=tx.now,
        updated_at=tx.now,
    )
    _settle(tx, task, force=True)
    return task


def update_task(tx: BoardTx, task_id: str, changes: TaskChanges) -> Task:
    """Change fields and add dependencies either way; an edge that would close a cycle, or that
    names an unknown task, is refused and nothing is changed."""
    task = require(tx, task_id)
    if changes.subject is not None:
        _check_subject(changes.subject)
    held_by_other = task.status == "in_progress" and (changes.owner or None) != task.owner
    if changes.owner is not None and held_by_other:
        raise TaskStoreError(
            f"task #{task.id} is held by {task.owner} (lease until "
            f"{stamp(task.lease_expires_at or 0)}): its owner cannot change while a claim "
            "holds it; it changes when the claim ends (completed, failed, given back)"
        )
    new_deps = [d for d in dict.fromkeys(changes.add_depends_on) if d not in task.depends_on]
    for dep in new_deps:
        _check_edge(tx, task, dep)
    dependents: list[Task] = []
    for other_id in dict.fromkeys(changes.add_blocks):
        other = require(tx, other_id)
        if task.id not in other.depends_on:
            _check_edge(tx, other, task.id)
            dependents.append(other)
    if changes.subject is not None:
        task.subject = changes.subject
    if changes.description is not None:
        task.description = changes.description
    if changes.active_form is not None:
        task.active_form = changes.active_form
    if changes.priority is not None:
        task.priority = changes.priority
    if changes.owner is not None:
        task.owner = changes.owner or None
    task.cost_usd += changes.add_cost_usd
    if changes.metadata is not None:
        merged = {**task.metadata, **changes.metadata}
        task.metadata = {k: v for k, v in merged.items() if v is not None}
    task.depends_on = [*task.depends_on, *new_deps]
    task.updated_at = tx.now
    _settle(tx, task, force=True)
    for other in dependents:
        other.depends_on = [*other.depends_on, task.id]
        other.updated_at = tx.now
        _settle(tx, other, force=True)
        _settle_dependents(tx, other.id)
    if new_deps:
        _settle_dependents(tx, task.id)
    return task


def _check_subject(subject: str) -> None:
    if not subject.strip():
        raise TaskStoreError("a task's subject cannot be empty: say in a few words what it is")


def _check_edge(tx: BoardTx, task: Task, dep_id: str) -> None:
    """`task` may come to depend on `dep_id`: it exists, the task has not started, and
    `dep_id` does not already depend on `task` (directly or through others)."""
    if dep_id == task.id:
        raise TaskStoreError(f"task #{task.id} cannot depend on itself")
    if tx.get(dep_id) is None:
        raise TaskStoreError(f"unknown dependency #{dep_id}: no such task in team {tx.team!r}")
    if task.status not in ("pending", "blocked"):
        raise TaskStoreError(
            f"task #{task.id} is {task.status}: dependencies can only be added before it starts"
        )
    path = _path(tx, dep_id, task.id)
    if path is not None:
        cycle = " -> ".join(f"#{t}" for t in [task.id, *path])
        raise TaskStoreError(f"#{task.id} depending on #{dep_id} would make a cycle: {cycle}")


def _path(tx: BoardTx, start: str, goal: str) -> list[str] | None:
    """The chain of dependencies from `start` to `goal`, if there is one."""
    came_from: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        if current == goal:
            chain: list[str] = []
            node: str | None = current
            while node is not None:
                chain.append(node)
                node = came_from[node]
            return chain[::-1]
        task = tx.get(current)
        for dep in task.depends_on if task is not None else []:
            if dep not in came_from:
                came_from[dep] = current
                queue.append(dep)
    return None


def claim_task(tx: BoardTx, task_id: str, owner: str, lease_s: float) -> Claim:
    """Take one task: pending, every dependency completed, and not assigned to someone else."""
    task = require(tx, task_id)
    if task.status == "in_progress":
        raise TaskStoreError(
            f"task #{task.id} is already being worked on by {task.owner} "
            f"(lease until {stamp(task.lease_expires_at or 0)})"
        )
    if task.status != "pending":
        raise TaskStoreError(f"task #{task.id} is {task.status}: only a pending task can start")
    waiting = [d for d in task.depends_on if _status(tx, d) != "completed"]
    if waiting:
        raise TaskStoreError(
            f"task #{task.id} waits for " + ", ".join(f"#{d}" for d in waiting) + " to complete"
        )
    if task.owner and task.owner != owner:
        raise TaskStoreError(f"task #{task.id} is assigned to {task.owner}")
    task.status, task.owner = "in_progress", owner
    task.attempts += 1
    task.fence = tx.next_fence()
    task.lease_expires_at = tx.now + lease_s
    task.started_at = task.updated_at = tx.now
    tx.save(task, ready=False)
    return Claim(task=task, owner=owner, fence=task.fence, lease_expires_at=task.lease_expires_at)


def _status(tx: BoardTx, task_id: str) -> str | None:
    task = tx.get(task_id)
    return task.status if task is not None else None


def held(tx: BoardTx, claim: Claim) -> Task:
    """The claimed task, if the claim still holds it: else `LeaseLost`, and nothing may be
    recorded. The fence decides, not the clock: every claim takes a new fence, and a release
    or a retry moves it on too, so a task with the claim's fence that is in progress (its
    lease ran out meanwhile) or pending (reaped since) was given to no one else. A lease that
    ran out while the store could not be reached (an outage, a paused worker) is held again,
    the work it finished recorded once."""
    task = tx.get(claim.task_id)
    if task is None:
        raise LeaseLost(f"task #{claim.task_id} was removed while {claim.owner} held it")
    if task.created_at != claim.task.created_at:  # ids (and fences) restart on a new board
        raise LeaseLost(
            f"task #{claim.task_id} that {claim.owner} held is gone from the board (the store "
            f"came back empty or was replaced): #{task.id} is now another task, "
            f"{task.subject!r}"
        )
    if task.fence != claim.fence or task.status not in ("in_progress", "pending"):
        raise LeaseLost(
            f"{claim.owner} no longer holds task #{task.id} (its lease ran out and it went back "
            f"to the board; it is now {task.status}"
            + (f", held by {task.owner}" if task.status == "in_progress" else "")
            + ")"
        )
    if task.status == "pending":
        task.status, task.owner = "in_progress", claim.owner
    return task


def heartbeat(tx: BoardTx, claim: Claim, lease_s: float) -> Claim:
    task = held(tx, claim)
    task.lease_expires_at = tx.now + lease_s
    tx.save(task, ready=False)
    return claim.model_copy(update={"task": task, "lease_expires_at": task.lease_expires_at})


def release(tx: BoardTx, claim: Claim, cost_usd: float = 0.0) -> Task:
    """Give the task back untouched (a worker stopping cleanly): the attempt is not counted."""
    task = held(tx, claim)
    task.attempts = max(0, task.attempts - 1)
    task.cost_usd += cost_usd
    task.fence = tx.next_fence()  # the claim is over: it holds the task no more
    _back_to_board(tx, task)
    return task


def finish(tx: BoardTx, claim: Claim, *, ok: bool, text: str, cost_usd: float = 0.0) -> Task:
    """Record the outcome of a held task: completed with its result (its dependents may become
    claimable), or failed with its error (its dependents are blocked, with the reason)."""
    task = held(tx, claim)
    task.status = "completed" if ok else "failed"
    task.result, task.error = (text, None) if ok else (task.result, text)
    task.cost_usd += cost_usd
    task.finished_at = task.updated_at = tx.now
    task.lease_expires_at = None
    tx.save(task, ready=False)
    _settle_dependents(tx, task.id)
    return task


def reap(tx: BoardTx, task_id: str, max_attempts: int) -> Task | None:
    """A task whose lease ran out goes back to pending, the attempt counted; after
    `max_attempts` it fails. None when it was not (or no longer) expired."""
    task = tx.get(task_id)
    if task is None or task.status != "in_progress":
        return None
    if (task.lease_expires_at or 0) >= tx.now:
        return None
    if task.attempts >= max_attempts:
        task.status = "failed"
        task.error = (
            f"its lease ran out {task.attempts} times (last held by {task.owner}): "
            "the worker died or stopped sending heartbeats"
        )
        task.finished_at = task.updated_at = tx.now
        task.lease_expires_at = None
        tx.save(task, ready=False)
        _settle_dependents(tx, task.id)
        return task
    _back_to_board(tx, task)
    return task


def _back_to_board(tx: BoardTx, task: Task) -> None:
    task.status, task.owner = "pending", None
    task.lease_expires_at = None
    task.updated_at = tx.now
    _settle(tx, task, force=True)


def retry_task(tx: BoardTx, task_id: str) -> Task:
    """A failed task back to pending with fresh attempts; what it blocked is unblocked."""
    task = require(tx, task_id)
    if task.status == "blocked":
        raise TaskStoreError(f"task #{task.id} is blocked: {task.blocked_reason}; retry that one")
    if task.status != "failed":
        raise TaskStoreError(f"task #{task.id} is {task.status}: only a failed task is retried")
    task.status, task.owner, task.error = "pending", None, None
    task.attempts = 0
    task.fence = tx.next_fence()  # no earlier claim may record anything on the new attempts
    task.finished_at = None
    task.updated_at = tx.now
    _settle(tx, task, force=True)
    _settle_dependents(tx, task.id)
    return task


def remove_task(tx: BoardTx, task_id: str) -> Task:
    task = require(tx, task_id)
    dependents = tx.dependents(task.id)
    if dependents:
        names = ", ".join(f"#{d}" for d in sorted(dependents, key=int))
        raise TaskStoreError(f"task #{task.id} is a dependency of {names}: remove those first")
    if task.status == "in_progress":
        raise TaskStoreError(
            f"task #{task.id} is being worked on by {task.owner}: remove it once that run ends "
            "(stop the worker with Ctrl+C, and it goes back to the board), or let it finish"
        )
    tx.delete(task)
    return task


def _settle(tx: BoardTx, task: Task, *, force: bool = False) -> bool:
    """Pending or blocked, from its dependencies: blocked (with the first reason found) while
    one failed or is blocked itself; claimable once all completed. Whether the status or the
    reason changed (either way, what depends on it must hear: a dependent copies the reason).
    Tasks already started or finished are left as they are."""
    if task.status not in ("pending", "blocked"):
        if force:
            tx.save(task, ready=False)
        return False
    deps = [tx.get(d) for d in task.depends_on]
    reason = next((_blocking(d) for d in deps if d is not None and _blocking(d)), None)
    before = (task.status, task.blocked_reason)
    task.status, task.blocked_reason = ("blocked", reason) if reason else ("pending", None)
    changed = before != (task.status, task.blocked_reason)
    if changed:
        task.updated_at = tx.now
    if changed or force:
        ready = not reason and all(d is not None and d.status == "completed" for d in deps)
        tx.save(task, ready=ready)
    return changed


def _blocking(dep: Task) -> str | None:
    if dep.status == "failed":
        return f"#{dep.id} ({dep.subject}) failed: {dep.error or 'no reason given'}"
    if dep.status == "blocked":
        return dep.blocked_reason
    return None


def _settle_dependents(tx: BoardTx, task_id: str) -> None:
    """Settle what depends on `task_id` after its status changed, and onward while statuses
    or reasons change (a failure blocks a whole chain; a retry unblocks it, or passes on the
    reason that still blocks it)."""
    queue = deque(tx.dependents(task_id))
    while queue:
        task = tx.get(queue.popleft())
        if task is None:
            continue
        if _settle(tx, task, force=True):
            queue.extend(tx.dependents(task.id))
