"""A stop is never lost: one that lands while a big tool input streams in ends the turn with
none of the reply's calls run, whenever it lands, on both wires.

Before, the stream's wait for its next event (`asyncio.wait_for` on Python 3.11) returned
the event when the cancellation came just as the event arrived; the turn then ran every call,
and `Session.interrupt` ignored each later stop, the first still counted as under way. The
server says when it has sent so many bytes, and the stop is sent from there as a signal
handler sends it, then passed on for a few more turns of the event loop: the sweep puts stops
on each step of an event's way from the socket to the reader.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.cli.setup import RunOptions, build_session
from tether.core.session import Session
from tether.protocol import ToolStarted, TurnFinished, UserInput
from tether.testing import FakeModelServer, reply, text, tool_use

BIG = 40_000
STOPS = [(at, hops) for at in range(1_000, 60_000, 15_000) for hops in range(8)]
"""When the stop is sent: once so many bytes of the answer are sent (it is about 64 kB long,
an event every 20 characters of input, each after a pause: the client waits for every one),
after so many turns of the client's event loop."""

Outcome = tuple[int, int, str | None, int, bool, bool]


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "openai/gpt-4.1"])
async def test_a_stop_while_a_big_tool_input_streams_runs_none_of_its_calls(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path, model: str
) -> None:
    outcomes = [await _stopped_turn(fake_model, workspace, model, at, hops) for at, hops in STOPS]
    stopped = [(at, hops, "stopped by SIGTERM", 1, False, False) for at, hops in STOPS]
    assert outcomes == stopped


async def _stopped_turn(
    fake_model: FakeModelServer, workspace: Path, model: str, stop_at: int, hops: int
) -> Outcome:
    """One turn stopped at (`stop_at`, `hops`): what it ended with, the requests it made,
    whether a call started, whether the first call's file was written."""
    fake_model.reset()
    small = workspace / f"small-{stop_at}-{hops}.txt"
    big = workspace / f"big-{stop_at}-{hops}.txt"
    fake_model.script(
        reply(
            tool_use("Write", file_path=str(small), content="ran"),
            tool_use("Write", file_path=str(big), content="x" * BIG),
            delay_s=0.0002,
        ),
        reply(text("never asked for")),
    )
    session = build_session(
        RunOptions(cwd=workspace, permission_mode="bypassPermissions", model=model)
    )
    fake_model.on_streamed = _stop_when_sent(session, stop_at, hops)
    try:
        events = [e async for e in session.submit(UserInput(text="go"))]
    finally:
        fake_model.on_streamed = None
        await session.aclose()
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    started = any(isinstance(e, ToolStarted) for e in events)
    return stop_at, hops, finished.error, len(fake_model.requests), started, small.exists()


def _stop_when_sent(session: Session, stop_at: int, hops: int) -> Callable[[int], None]:
    """The server's `on_streamed`: once `stop_at` bytes are sent, the stop goes to the
    session's loop (as from a signal handler), and on from there `hops` times."""
    loop = asyncio.get_running_loop()
    sent: list[int] = []

    def stop(hops: int) -> None:
        if hops:
            loop.call_soon(stop, hops - 1)
        else:
            session.interrupt("stopped by SIGTERM")

    def on_streamed(size: int) -> None:
        if size >= stop_at and not sent:
            sent.append(size)
            loop.call_soon_threadsafe(stop, hops)

    return on_streamed
