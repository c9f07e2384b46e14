"""A stop the user asked for, written down as well as sent, and read before anything starts.

A stop reaches the running turn as a cancellation of its task. A cancellation can be lost on
its way: an await that swallows it (Python 3.11's `asyncio.wait_for` returns its result when
the cancellation lands just as what it waited for completes; a library that catches it) lets
the turn go on, and it then ran every call the model asked for. So `Session.interrupt` also
marks the turn's `StopAsked`, and the loop calls `check` before each model call and each tool
call: a lost cancellation is honoured at the next step, never after the work it should have
prevented. The record is inherited by the tasks the turn starts (its calls, their subagents).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Generator
from contextvars import ContextVar

from tether.slotted import Slotted


class StopAsked(Slotted):
    """Whether the turn was asked to stop (and why, for its result)."""

    __slots__ = ("reason",)
    reason: str | None

    def __init__(self, reason: str | None = None) -> None:
        self.reason = reason


_current: ContextVar[StopAsked | None] = ContextVar("interruption", default=None)


@contextlib.contextmanager
def watching(record: StopAsked) -> Generator[None]:
    """Code inside the block (and the tasks it starts) stops at `check` once `record` is set."""
    token = _current.set(record)
    try:
        yield
    finally:
        _current.reset(token)


def check() -> None:
    """Raise `CancelledError` when the running turn was asked to stop, as the cancellation
    that carried the stop would have."""
    record = _current.get()
    if record is not None and record.reason is not None:
        raise asyncio.CancelledError
