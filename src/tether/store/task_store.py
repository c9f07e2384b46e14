"""`TaskStore`: one team's task board, whatever keeps it, and `open_task_store` to pick one
from a URL.

Every method is one atomic step, safe across processes (and, for Redis, machines); the rules
behind each are `tether.store.task_graph`'s. Methods block (SQLite, a socket): call them from
a thread in async code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from tether.protocol.team_events import TaskChanged
from tether.store.store_url import (
    DEFAULT_TEAM,
    absent_store,
    default_store_path,
    store_location,
)
from tether.store.task_graph import TaskChanges
from tether.store.task_outbox import OutboxEvent
from tether.store.task_records import (
    DEFAULT_LEASE_S,
    DEFAULT_MAX_ATTEMPTS,
    Claim,
    NewTask,
    StoreLost,
    Task,
)

__all__ = ["DEFAULT_TEAM", "TaskStore", "default_store_path", "open_task_store", "store_location"]
"""Where a team's stores are (`store_url`) is said here too, beside the task store."""


class TaskStore(Protocol):
    team: str
    url: str
    """Where it is, for messages (a Redis URL without its password)."""

    def create(self, new: NewTask) -> Task:
        """Add a task; an unknown dependency is refused (`TaskStoreError`)."""
        ...

    def get(self, task_id: str) -> Task:
        """The task, with `blocks` filled in; `TaskNotFound` when there is none."""
        ...

    def list(self) -> list[Task]:
        """Every task of the team, oldest first, with `blocks` filled in."""
        ...

    def update(self, task_id: str, changes: TaskChanges) -> Task:
        """Change fields or add dependencies (a cycle or unknown task is refused)."""
        ...

    def claim_next(
        self,
        owner: str,
        *,
        lease_s: float = DEFAULT_LEASE_S,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        reaped: list[Task] | None = None,
    ) -> Claim | None:
        """Take the next claimable task (pending, dependencies completed, unassigned or
        assigned to `owner`): highest priority first, then oldest. Expired leases are
        returned to the board first (after `max_attempts` their task fails), and the tasks
        they held appended to `reaped` once that is recorded. None: nothing to claim now."""
        ...

    def claim(self, task_id: str, owner: str, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        """Take one named task (`TaskStoreError` when it is not claimable)."""
        ...

    def heartbeat(self, claim: Claim, *, lease_s: float = DEFAULT_LEASE_S) -> Claim:
        """Extend the lease; `LeaseLost` when the claim no longer holds the task."""
        ...

    def release(self, claim: Claim, *, cost_usd: float = 0.0) -> Task:
        """Give the task back to the board, the attempt not counted."""
        ...

    def complete(self, claim: Claim, result: str, *, cost_usd: float = 0.0) -> Task:
        """Record the result, once: `LeaseLost` (nothing recorded) when the lease ran out."""
        ...

    def fail(self, claim: Claim, error: str, *, cost_usd: float = 0.0) -> Task:
        """Record the failure; what depends on the task is blocked, with the reason."""
        ...

    def retry(self, task_id: str) -> Task:
        """A failed task back to pending, its dependents unblocked."""
        ...

    def remove(self, task_id: str) -> Task:
        """Delete a task nothing depends on and nobody works on."""
        ...

    def reap_expired(self, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[Task]:
        """Return tasks whose lease ran out to the board (or fail them): what changed."""
        ...

    def keep_events(self, by: str, writer: str) -> None:
        """From now on each change this store makes writes its event (`TaskChanged`, made by
        `by`) to the board's outbox in the change's own transaction, as `writer`'s
        (`task_outbox.writer_mark`)."""
        ...

    def take_made(self) -> list[TaskChanged]:
        """The events of the changes this store committed since the last call."""
        ...

    def pending_events(self, limit: int = 1000) -> list[OutboxEvent]:
        """The outbox's events not delivered yet, oldest first (every writer's)."""
        ...

    def events_delivered(self, ids: list[str]) -> None:
        """These events (their `event_id`) were delivered: they leave the outbox in the next
        transaction this store makes (a change's own, or `flush_delivered`'s; `close` makes
        one when any is left). Writes nothing now."""
        ...

    def flush_delivered(self) -> None:
        """Take the delivered events out of the outbox now, in a transaction of their own (a
        process about to wait for the board); `StoreUnavailable` leaves them for the next."""
        ...

    def change_mark(self) -> str:
        """A mark of the board's outbox as it is now, for `wait_change`."""
        ...

    def wait_change(self, mark: str, timeout_s: float) -> bool:
        """Wait until an event is written to the outbox after `mark` (a change made by a
        store keeping events: `keep_events`), at most `timeout_s`: whether one was."""
        ...

    def close(self) -> None: ...


def open_task_store(
    url: str | None,
    *,
    project: Path,
    team: str = DEFAULT_TEAM,
    existing: bool = False,
    read_only: bool = False,
    made: bool = True,
) -> TaskStore:
    """The store at `url`: `redis://host:port/db` (or `rediss://`), `sqlite:///abs/path`, a
    plain path (relative to `project`), or None for the project's own SQLite file. A store
    that cannot be used raises `StoreUnavailable` naming it; there is no fallback. With
    `existing` (commands that only read), a SQLite file named by `url` must exist already:
    a mistyped path is said, not made into an empty store. `read_only` (a command that
    only looks: list, show, the board): no SQLite file is made, not even the project's
    default one (`StoreAbsent`). `made=False` (a session lent a
    worker's claim: the board exists): a SQLite file or Redis board that is gone is said lost,
    never made again empty (the worker would then find a board that is not the one it opened)."""
    where = store_location(url, project=project, team=team)
    if isinstance(where, str):
        from tether.store.redis_tasks import RedisTaskStore

        return RedisTaskStore(where, team, made=made)
    from tether.store.sqlite_tasks import SqliteTaskStore

    if ((existing and url) or read_only) and not where.exists():
        raise absent_store(where, url=url, team=team, made_by="`tether tasks add`")
    if not made and not where.exists():
        raise StoreLost(
            f"the task store {where} was deleted or moved away since the worker that runs this "
            "session opened it: nothing more is recorded in it"
        )
    return SqliteTaskStore(where, team)
