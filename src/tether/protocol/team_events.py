"""Events of a team, beside a session's own (`events.py`): a member's protocol transitions and
a board task's lifecycle. They go to the same event log, webhooks and telemetry as a session's
events (`tether.observe`), filed under the session (or worker) that made the change; they are
not part of a session's `Event` stream, so front ends that read it see none of them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

TaskChange = Literal[
    "created", "claimed", "completed", "failed", "released", "lease_expired", "retried", "removed"
]


class _TeamEvent(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)


class TeammateStateChanged(_TeamEvent):
    """A member of `team` went from one protocol state to another (idle, requesting,
    waiting, responding; stopped and started), and why."""

    kind: Literal["teammate_state_changed"] = "teammate_state_changed"
    team: str
    member: str
    before: str
    after: str
    cause: str
    message_id: str | None = None
    plan_mode: bool = False


class TaskChanged(_TeamEvent):
    """A task of `team`'s board was created, claimed, completed, failed or released (given
    back to the board, the attempt not counted), its lease ran out (`lease_expired`: back to
    pending, the attempt counted, or failed after the last attempt; `by` is whoever found it
    out), or it was retried or removed; by `by` (a worker's, a member's or a command's name).
    `event_id`: the change's own id (delivered at least once: a reader drops a second
    delivery of an id it has seen)."""

    kind: Literal["task_changed"] = "task_changed"
    event_id: str | None = None
    team: str
    task_id: str
    change: TaskChange
    by: str
    subject: str
    status: str
    owner: str | None = None
    attempts: int = 0
    cost_usd: float = 0.0
