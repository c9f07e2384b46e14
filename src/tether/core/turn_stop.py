"""A turn ended on request once the step under way is over: a hook's `continue: false`, whatever
its event, or a tool whose call completes the task (StructuredOutput's answer).

Claude Code's contract: a PreToolUse or PostToolUse hook that answers `continue: false` lets
its call (and the calls beside it) finish, and then the agent stops instead of calling the
model again; a UserPromptSubmit hook stops the prompt; a Stop hook's stop wins over its request
to go on. Every hook outcome passes through `lifecycle.surface`, which records a stop here; the
loop reads it before each model call (`requested`), and the session before it goes on after
its own hooks. A turn (and each subagent's run) has its own record (`watching`), inherited by
the tasks it starts (its tool calls), so a stop asked inside a subagent ends that subagent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator
from contextvars import ContextVar

from tether.protocol import TurnSubtype
from tether.slotted import Slotted


class StopRequest(Slotted):
    """Whether the running turn is to end, and what the user is told about it (nothing when
    the turn simply has its answer)."""

    __slots__ = ("by_hook", "failed", "reason", "said", "stopped")
    stopped: bool
    said: str | None
    by_hook: bool
    """A hook's `continue: false`: nothing sends the model back to work after it."""
    failed: tuple[TurnSubtype, str] | None
    """The turn ends in error: its subtype and what the result says (a tool gave up)."""
    reason: str | None
    """The hook's own `stopReason`, if it gave one (what the model is told)."""

    def __init__(
        self,
        stopped: bool = False,
        said: str | None = None,
        by_hook: bool = False,
        failed: tuple[TurnSubtype, str] | None = None,
        reason: str | None = None,
    ) -> None:
        self.stopped = stopped
        self.said = said
        self.by_hook = by_hook
        self.failed = failed
        self.reason = reason


_current: ContextVar[StopRequest | None] = ContextVar("turn_stop", default=None)


@contextlib.contextmanager
def watching() -> Generator[StopRequest]:
    """A fresh record for the turn run inside the block (and the tasks it starts)."""
    request = StopRequest()
    token = _current.set(request)
    try:
        yield request
    finally:
        _current.reset(token)


def request_stop(
    said: str | None = None,
    *,
    by_hook: bool = False,
    failed: tuple[TurnSubtype, str] | None = None,
    reason: str | None = None,
) -> None:
    """End the running turn before its next model call; `said`: what the user is told (outside
    a turn this means nothing); `failed`: the turn ends in that error, with that result;
    `reason`: a hook's `stopReason`."""
    request = _current.get()
    if request is not None and not request.stopped:
        request.stopped, request.said, request.by_hook = True, said, by_hook
        request.failed, request.reason = failed, reason


def record() -> StopRequest | None:
    """The running turn's record (asked or not): who counts something per turn keys it by this."""
    return _current.get()


def halted() -> bool:
    """Whether a hook stopped the running turn (then it is not continued, whatever asks)."""
    request = requested()
    return request is not None and request.by_hook


def resume() -> None:
    """The turn goes on after all (a Stop hook sends the model back after its final answer)."""
    request = _current.get()
    if request is not None and not request.by_hook:
        request.stopped, request.said = False, None


def requested() -> StopRequest | None:
    """The stop asked for in the running turn, if one was."""
    request = _current.get()
    return request if request is not None and request.stopped else None
