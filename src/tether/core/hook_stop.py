"""A hook's `continue: false`: whatever the event, the turn ends once the step under way is over.

Claude Code's contract: a PreToolUse or PostToolUse hook that answers `continue: false` lets its
call (and the calls beside it) finish, and then the agent stops instead of calling the model
again; a UserPromptSubmit hook stops the prompt; a Stop hook's stop wins over its request to
go on. Every hook outcome passes through `lifecycle.surface`, which records a stop here; the
loop reads it before each model call (`requested`), and the session before it goes on after
its own hooks. A turn (and each subagent's run) has its own record (`watching`), inherited by
the tasks it starts (its tool calls), so a stop asked inside a subagent ends that subagent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class StopRequest:
    """Whether a hook asked to stop the running turn, and why (`stopReason`)."""

    stopped: bool = False
    reason: str | None = None


_current: ContextVar[StopRequest | None] = ContextVar("hook_stop", default=None)


@contextlib.contextmanager
def watching() -> Generator[StopRequest]:
    """A fresh record for the turn run inside the block (and the tasks it starts)."""
    request = StopRequest()
    token = _current.set(request)
    try:
        yield request
    finally:
        _current.reset(token)


def request_stop(reason: str | None) -> None:
    """Record that a hook asked to stop the running turn (outside a turn it means nothing)."""
    request = _current.get()
    if request is not None and not request.stopped:
        request.stopped, request.reason = True, reason


def requested() -> StopRequest | None:
    """The stop a hook asked for in the running turn, if one did."""
    request = _current.get()
    return request if request is not None and request.stopped else None
