"""The turns a stream-json session starts by itself, between the client's, as Claude Code's:
an `asyncRewake` hook's message, and the end of a background subagent or command (its
notification, in Claude Code's system notification); and, once the client's input ends, the
wait for the background work still running (bounded and said, as `-p`'s: `background_wait`)
and the turns it wakes, before the process exits."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from tether.cli.background_wait import ended_within
from tether.core.session import Session
from tether.protocol import UserInput

T = TypeVar("T")


async def unless_stopped(waiting: Awaitable[T], stopping: asyncio.Event) -> T | None:
    """What `waiting` gives, or None as soon as `stopping` is set (a stop signal came): the
    wait is then cancelled, so that a signal is never held up by background work."""
    wait = asyncio.ensure_future(waiting)
    heard = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait((wait, heard), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (wait, heard):
            task.cancel()
        await asyncio.gather(wait, heard, return_exceptions=True)
    return None if stopping.is_set() or wait.cancelled() else wait.result()


class Wakes:
    def __init__(
        self,
        prompts: asyncio.Queue[UserInput | None],
        idle: Callable[[], bool],
        say: Callable[[str], None],
        limit_s: float,
    ) -> None:
        self._prompts = prompts
        self._idle = idle
        """No turn runs, and the process is not stopping."""
        self._say = say
        """Tells the client (a system notice line) and stderr of the wait at the end."""
        self._limit_s = limit_s
        """The bound on that wait (`background_wait.wait_limit_s`)."""
        self._started: set[int] = set()
        self._stopping = asyncio.Event()
        """Set by a stop signal: the wait for background work ends at once."""

    def stop(self) -> None:
        """A stop signal came: a wait for background work ends at once (the session's close
        then stops that work, by its id), and none begins."""
        self._stopping.set()

    def _can_start(self) -> bool:
        return self._idle() and self._prompts.empty()  # (a waiting prompt reads it too)

    def hook_woke(self, session: Session) -> None:
        """An `asyncRewake` hook's message, steered into the session: with no turn running
        (nor waiting to), the start of one, as Claude Code wakes the model."""
        if self._can_start():
            queued = session.take_queued()
            if queued:
                self._prompts.put_nowait(UserInput(text="\n\n".join(queued)))

    def task_ended(self, session: Session) -> None:
        """A background subagent or command ended: with no turn running (nor waiting to), a
        turn that gives the model its notification, as Claude Code wakes the model. During a
        turn the model reads it at its next call; a prompt waiting reads it with its own."""
        background = session.agent.tool_context.background
        # Not after a turn the repeat guard ended: the loop is not woken again.
        if self._can_start() and background.unreported() and not session.looped:
            from tether.agents.background import wake_prompt

            wake = UserInput(text=wake_prompt(background.finished_unreported()))
            self._started.add(id(wake))
            self._prompts.put_nowait(wake)

    def took(self, prompt: UserInput) -> bool:
        """Whether `prompt`, about to run, is one a background subagent's end started (its
        result says so)."""
        started = id(prompt) in self._started
        self._started.discard(id(prompt))
        return started

    async def input_ended(self, session: Session | None) -> bool:
        """The input ended with background subagents or commands running, or ended and not
        told yet: wait for one to end, at most the bound and said (`ended_within`, as `-p`
        waits), then the turn it wakes, before the process exits (called again after that
        turn). False: there are none, none ended within the bound (what runs is named; the
        session's close stops it), no session, or the process is stopping."""
        if session is None or not self._idle() or session.looped:
            return False
        background = session.agent.tool_context.background

        def woke() -> bool:  # (an end queues its wake as it comes: `task_ended`)
            return background.unreported() or not self._prompts.empty()

        ended = ended_within(background, self._limit_s, self._say, woke)
        if not await unless_stopped(ended, self._stopping):
            return False
        self.task_ended(session)  # one that ended before: told by no wake yet
        self._prompts.put_nowait(None)  # the end of input, after the turn it woke
        return True
