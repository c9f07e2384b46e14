"""Harness overhead per turn (everything but model and tool time), early and late in a session.

A scripted 300-turn session runs against the fake server with no latency. For each model call,
overhead = time from the previous response being complete to this one being complete, minus the
tools run in between, minus the time the server spent answering (it validates the whole
transcript, which is the fake's cost, not ours). Reported at turn 10 and turn 300, in total and
split into tether's own share and the anthropic SDK's preparation of the request body (it copies
the whole body in Python before encoding it, which grows with the conversation).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tether.cli.setup import RunOptions, build_session
from tether.protocol import MessageCompleted, ToolFinished, ToolStarted, TurnFinished, UserInput
from tether.testing import FakeModelServer, RecordedRequest, Reply, reply, text, tool_use

TURNS = int(os.environ.get("BENCH_TURNS", "300"))

_sdk_prepare_s: list[float] = []


def _time_sdk_body_preparation() -> None:
    """Wrap the SDK's body preparation and JSON encoding so their time can be reported apart."""
    import anthropic._base_client as base_client

    prepare = base_client.async_prepare_request_data
    dumps = base_client.openapi_dumps

    async def timed_prepare(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await prepare(*args, **kwargs)
        finally:
            _sdk_prepare_s.append(time.perf_counter() - started)

    def timed_dumps(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return dumps(*args, **kwargs)
        finally:
            _sdk_prepare_s[-1] += time.perf_counter() - started

    base_client.async_prepare_request_data = timed_prepare  # type: ignore[assignment]
    base_client.openapi_dumps = timed_dumps  # type: ignore[assignment]


async def _run(
    server: FakeModelServer, workspace: Path, home: Path
) -> tuple[list[float], list[float]]:
    def answer(request: RecordedRequest) -> Reply:
        if request.index + 1 >= TURNS:
            return reply(text("done"))
        return reply(text(f"step {request.index}"), tool_use("Read", file_path="note.txt"))

    server.script(*([answer] * TURNS))
    session = build_session(
        RunOptions(
            cwd=workspace,
            env={
                "ANTHROPIC_BASE_URL": server.url,
                "ANTHROPIC_API_KEY": "bench",
                "TETHER_HOME": str(home),
                "TETHER_CONTEXT_WINDOW": "100000000",
            },
        )
    )
    server.context_window = 100_000_000
    done_at: list[float] = []
    tool_time: list[float] = []
    tool_started = 0.0
    async for event in session.submit(UserInput(text="go")):
        now = time.perf_counter()
        if isinstance(event, MessageCompleted) and event.message.role == "assistant":
            done_at.append(now)
            tool_time.append(0.0)
        elif isinstance(event, ToolStarted):
            tool_started = now
        elif isinstance(event, ToolFinished):
            tool_time[-1] += now - tool_started
        elif isinstance(event, TurnFinished) and event.is_error:
            raise RuntimeError(event.result)
    server_time = [r.answered_at - r.received_at for r in server.requests]
    overheads = [
        done_at[i] - done_at[i - 1] - tool_time[i - 1] - server_time[i]
        for i in range(1, len(done_at))
    ]
    return overheads, _sdk_prepare_s[-len(done_at) + 1 :]


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "note.txt").write_text("a small file\n" * 20)
        _time_sdk_body_preparation()
        overheads, sdk = asyncio.run(_run(server, workspace, Path(tmp) / "home"))
    own = [total - prepare for total, prepare in zip(overheads, sdk, strict=True)]

    def at(values: list[float], early: bool) -> float:
        return statistics.median(values[5:15] if early else values[-10:]) * 1000

    return {
        "total_10_ms": at(overheads, True),
        "total_300_ms": at(overheads, False),
        "sdk_10_ms": at(sdk, True),
        "sdk_300_ms": at(sdk, False),
        "own_10_ms": at(own, True),
        "own_300_ms": at(own, False),
    }


def report(figures: dict[str, float]) -> None:
    print(f"harness overhead per turn ({TURNS}-turn scripted session, median of 10 turns, ms)")
    print(f"  {'':34}{'turn 10':>9}{f'turn {TURNS}':>10}{'ratio':>8}")
    for key, label in (
        ("total", "total (everything but model, tools)"),
        ("own", "  tether's own code"),
        ("sdk", "  anthropic SDK body prep + encode"),
    ):
        early, late = figures[f"{key}_10_ms"], figures[f"{key}_300_ms"]
        print(f"  {label:34}{early:9.2f}{late:10.2f}{late / early:8.2f}")
    print("  (target: ratio under 1.5)")


if __name__ == "__main__":
    report(main())
