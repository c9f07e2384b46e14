"""A board's outbox: each task change's event (`TaskChanged`) written in the transaction that
makes the change, so that a process killed between the two neither loses the event nor tells
of a change that was never recorded. Whoever delivers an event (the process that made the
change, at once; any other, for one a killed process left) removes it once delivered: at least
once, so each event carries an id (`event_id`) by which readers drop a second delivery.

SQLite keeps the outbox in a table of the task store's file, Redis in a stream
(`tether:{TEAM}:outbox`, XADD in the change's MULTI/EXEC or in the claim's Lua script); both
hold only what is not delivered yet."""

from __future__ import annotations

import os
import socket
import uuid
from typing import Final

from tether.protocol.team_events import TaskChange, TaskChanged
from tether.slotted import Slotted
from tether.store.task_records import Task


class OutboxEvent(Slotted):
    """An event in a board's outbox: who wrote it (`writer`, `writer_mark`) and how long ago,
    by the store's clock."""

    __slots__ = ("age_s", "event", "writer")
    event: Final[TaskChanged]
    writer: Final[str]
    age_s: Final[float]

    def __init__(self, event: TaskChanged, writer: str, age_s: float) -> None:
        self.event, self.writer, self.age_s = event, writer, age_s

    @property
    def id(self) -> str:
        assert self.event.event_id is not None
        return self.event.event_id


class Outbox(Slotted):
    """Whose changes a store writes to its outbox: `by` (the name events give as their maker)
    and `writer` (the process that delivers them: `writer_mark`)."""

    __slots__ = ("by", "writer")
    by: Final[str]
    writer: Final[str]

    def __init__(self, by: str, writer: str) -> None:
        self.by, self.writer = by, writer

    def event(self, team: str, change: TaskChange, task: Task) -> TaskChanged:
        """The event of `change` to `task`, under a new id."""
        return TaskChanged(
            event_id=uuid.uuid4().hex,
            team=team,
            task_id=task.id,
            change=change,
            by=self.by,
            subject=task.subject,
            status=task.status,
            owner=task.owner,
            attempts=task.attempts,
            cost_usd=task.cost_usd,
        )


def writer_mark(started: str | None) -> str:
    """`PID@HOST@START`: this process, told apart from a later one given its pid (`started`:
    its start time in `/proc`, None where there is none)."""
    return f"{os.getpid()}@{socket.gethostname()}@{started or ''}"


def parse_writer(mark: str) -> tuple[int, str, str | None] | None:
    """A `writer_mark`'s pid, host and start time; None when it is not one."""
    pid, _, rest = mark.partition("@")
    host, _, started = rest.rpartition("@")
    if not pid.isdigit() or not host:
        return None
    return int(pid), host, started or None
