"""A subagent run in the background: a task of the session's, kept with its commands in
`BackgroundShells`."""

from __future__ import annotations

import asyncio

from tether.slotted import Slotted


class BackgroundAgent(Slotted):
    """A subagent started with `run_in_background`: its run is a task of the session's; what
    the model is told when it ends (Claude Code's `<task-notification>`) is its result."""

    __slots__ = (
        "agent_type",
        "announced",
        "description",
        "id",
        "interrupted",
        "run",
        "stopped_by_user",
    )
    id: str
    description: str
    agent_type: str
    run: asyncio.Task[str]
    announced: bool
    stopped_by_user: bool
    interrupted: bool
    """Stopped with the turn the client interrupted: the model is told at its next request,
    not woken for it (as Claude Code)."""

    def __init__(
        self, id: str, description: str, run: asyncio.Task[str], agent_type: str = ""
    ) -> None:
        self.id = id
        self.description = description
        self.agent_type = agent_type
        self.run = run
        self.announced = False
        self.stopped_by_user = False
        self.interrupted = False

    def notification(self) -> str:
        """What the model is told once it ended (stopped: a notification of its own)."""
        if not self.run.cancelled():
            error = self.run.exception()
            if error is None:
                return self.run.result()
            return (
                f"<task-notification>\n<task-id>{self.id}</task-id>\n<status>failed</status>\n"
                f'<summary>Agent "{self.description}" failed: {error}</summary>\n'
                "</task-notification>"
            )
        who = "user" if self.stopped_by_user else "the session"  # (Claude Code's words)
        return (
            f"<task-notification>\n<task-id>{self.id}</task-id>\n<status>killed</status>\n"
            f'<summary>Agent "{self.description}" was stopped by {who}</summary>\n'
            "</task-notification>"
        )
