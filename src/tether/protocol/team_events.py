"""Events of a team, beside a session's own (`events.py`): a member's protocol transitions and
a board task's lifecycle. They go to the same event log, webhooks and telemetry as a session's
events (`tether.observe`), filed under the session (or worker) that made the change; they are
not part of a session's `Event` stream, so front ends that read it see none of them."""

from __future__ import annotations

from typing import Final, Literal

from tether.protocol.record import Record

TaskChange = Literal[
    "created", "claimed", "completed", "failed", "released", "lease_expired", "retried", "removed"
]


class _TeamEvent(Record):
    __slots__ = ()


class TeammateStateChanged(_TeamEvent):
    """A member of `team` went from one protocol state to another (idle, requesting,
    waiting, responding; stopped and started), and why."""

    __slots__ = ("after", "before", "cause", "kind", "member", "message_id", "plan_mode", "team")
    kind: Final[Literal["teammate_state_changed"]]
    team: Final[str]
    member: Final[str]
    before: Final[str]
    after: Final[str]
    cause: Final[str]
    message_id: Final[str | None]
    plan_mode: Final[bool]

    def __init__(
        self,
        *,
        team: str,
        member: str,
        before: str,
        after: str,
        cause: str,
        kind: Literal["teammate_state_changed"] = "teammate_state_changed",
        message_id: str | None = None,
        plan_mode: bool = False,
    ) -> None:
        self.kind = kind
        self.team = team
        self.member = member
        self.before = before
        self.after = after
        self.cause = cause
        self.message_id = message_id
        self.plan_mode = plan_mode


class TaskChanged(_TeamEvent):
    """A task of `team`'s board was created, claimed, completed, failed or released (given
    back to the board, the attempt not counted), its lease ran out (`lease_expired`: back to
    pending, the attempt counted, or failed after the last attempt; `by` is whoever found it
    out), or it was retried or removed; by `by` (a worker's, a member's or a command's name).
    `event_id`: the change's own id (delivered at least once: a reader drops a second
    delivery of an id it has seen)."""

    __slots__ = (
        "attempts",
        "by",
        "change",
        "cost_usd",
        "event_id",
        "kind",
        "owner",
        "status",
        "subject",
        "task_id",
        "team",
    )
    kind: Final[Literal["task_changed"]]
    event_id: Final[str | None]
    team: Final[str]
    task_id: Final[str]
    change: Final[TaskChange]
    by: Final[str]
    subject: Final[str]
    status: Final[str]
    owner: Final[str | None]
    attempts: Final[int]
    cost_usd: Final[float]

    def __init__(
        self,
        *,
        team: str,
        task_id: str,
        change: TaskChange,
        by: str,
        subject: str,
        status: str,
        kind: Literal["task_changed"] = "task_changed",
        event_id: str | None = None,
        owner: str | None = None,
        attempts: int = 0,
        cost_usd: float = 0.0,
    ) -> None:
        self.kind = kind
        self.event_id = event_id
        self.team = team
        self.task_id = task_id
        self.change = change
        self.by = by
        self.subject = subject
        self.status = status
        self.owner = owner
        self.attempts = attempts
        self.cost_usd = cost_usd
