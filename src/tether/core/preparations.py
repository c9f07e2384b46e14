"""A session's preparations (connecting MCP servers): run once before the first request,
however many callers ask, their events for the first caller; cancelled by an interruption."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from tether.protocol import Event

Preparation = Callable[[Callable[[Event], None]], Awaitable[None]]
"""One preparation, given an `emit` for what it has to say."""


class Preparations:
    def __init__(self) -> None:
        self.steps: list[Preparation] = []
        self._task: asyncio.Task[list[Event]] | None = None
        self._told = False

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def run_once(self) -> list[Event]:
        """Run the steps, once, however many callers ask (a front end may start them early,
        while the user types; the first turn waits for them). Their events go to the first
        caller only."""
        if self._task is None:
            self._task = asyncio.create_task(self._run())
        try:
            events = await asyncio.shield(self._task)
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if (current is not None and current.cancelling()) or not self._task.cancelled():
                raise
            events = []  # interrupted: the session goes on without what it was preparing
        if self._told:
            return []
        self._told = True
        return events

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def aclose(self) -> None:
        """Cancel them (a server still connecting is not waited for) and let them end."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _run(self) -> list[Event]:
        events: list[Event] = []
        for prepare in self.steps:
            await prepare(events.append)
        return events
