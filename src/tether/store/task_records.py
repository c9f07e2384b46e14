"""A team's task: the record every task store keeps, a claim on one, and the errors they raise.

Claude Code's names where its task tools overlap (`subject`, `description`, `activeForm`,
`owner`, `status`, `metadata`), so its prompts and skills work; ours beside them (priority,
dependencies, result, attempts, cost, the lease and its fencing token).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tether.store.store_errors import DEFAULT_LEASE_S as DEFAULT_LEASE_S
from tether.store.store_errors import StoreAbsent as StoreAbsent
from tether.store.store_errors import StoreDamaged as StoreDamaged
from tether.store.store_errors import StoreLost as StoreLost
from tether.store.store_errors import StoreUnavailable as StoreUnavailable

TaskStatus = Literal["pending", "in_progress", "completed", "failed", "blocked"]
Priority = Literal["high", "medium", "low"]

PRIORITY_RANK: dict[str, int] = {"high": 0, "medium": 1, "low": 2}
"""Claim order: the lower rank first, then the older task."""


DEFAULT_MAX_ATTEMPTS = 3
"""Claims whose lease ran out before a task is `failed` instead of returned to `pending`."""


class Task(BaseModel):
    """One task of a team's graph, as a store keeps it."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    id: str
    subject: str
    description: str = ""
    active_form: str | None = None
    """What the task's work is called while it runs ("Running tests": Claude Code's
    `activeForm`)."""
    status: TaskStatus = "pending"
    priority: Priority = "medium"
    owner: str | None = None
    """Who works on it (the claim's owner), or who it is assigned to while pending: only that
    owner may claim it then."""
    depends_on: list[str] = Field(default_factory=list[str])
    """Tasks that must be completed before this one can be claimed (Claude Code's
    `blockedBy`)."""
    blocks: list[str] = Field(default_factory=list[str])
    """Tasks that depend on this one: filled in when read, never written."""
    blocked_reason: str | None = None
    """Why a `blocked` task cannot run: the failed task it depends on, and its error."""
    result: str | None = None
    error: str | None = None
    attempts: int = 0
    """Claims so far (a claim given back with `release` is not counted)."""
    cost_usd: float = 0.0
    """Spend recorded by whoever worked on it, over every attempt."""
    metadata: dict[str, Any] = Field(default_factory=dict[str, Any])
    created_at: float = 0.0
    updated_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    lease_expires_at: float | None = None
    fence: int = 0
    """The fencing token of the newest claim: only its holder may heartbeat, release,
    complete or fail the task."""

    @property
    def seq(self) -> int:
        """Creation order (ids are the team's counter)."""
        return int(self.id)

    def stored(self) -> dict[str, Any]:
        """What a store writes: everything but the derived `blocks`."""
        return self.model_dump(mode="json", exclude={"blocks"})


class NewTask(BaseModel):
    """What creating a task takes."""

    model_config = ConfigDict(defer_build=True)

    subject: str
    description: str = ""
    active_form: str | None = None
    priority: Priority = "medium"
    depends_on: list[str] = Field(default_factory=list[str])
    owner: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict[str, Any])


class Claim(BaseModel):
    """A lease on one task: what its holder shows to heartbeat, release, complete or fail it."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    task: Task
    owner: str
    fence: int
    lease_expires_at: float

    @property
    def task_id(self) -> str:
        return self.task.id


class TaskStoreError(Exception):
    """A request the task graph refuses (unknown task, cycle, wrong state): said to the
    person or the model as it is."""


class TaskNotFound(TaskStoreError):
    def __init__(self, task_id: str, team: str) -> None:
        super().__init__(f"no task #{task_id} in team {team!r}")
        self.task_id = task_id


class LeaseLost(TaskStoreError):
    """The claim is no longer the task's: its lease ran out (the task went back to the board,
    perhaps to another worker) or it was released. Nothing was recorded."""
