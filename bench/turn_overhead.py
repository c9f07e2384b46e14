"""Harness overhead per turn (everything but model and tool time), early and late in a session.

A scripted 300-turn session runs against the fake server with no latency. For each model call,
overhead = time from the previous response being complete to this one being complete, minus the
tools run in between, minus the time the server spent answering (it validates the whole
transcript, which is the fake's cost, not ours). Reported at turn 10 and turn 300.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from tether.cli.setup import RunOptions, build_session
from tether.protocol import MessageCompleted, ToolFinished, ToolStarted, TurnFinished, UserInput
from tether.testing import FakeModelServer, RecordedRequest, Reply, reply, text, tool_use

TURNS = int(os.environ.get("BENCH_TURNS", "300"))


async def _run(server: FakeModelServer, workspace: Path, home: Path) -> list[float]:
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
    return [
        done_at[i] - done_at[i - 1] - tool_time[i - 1] - server_time[i]
        for i in range(1, len(done_at))
    ]


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "note.txt").write_text("a small file\n" * 20)
        overheads = asyncio.run(_run(server, workspace, Path(tmp) / "home"))
    early = statistics.median(overheads[5:15])
    late = statistics.median(overheads[-10:])
    return {"turn_10_ms": early * 1000, "turn_300_ms": late * 1000, "ratio": late / early}


def report(figures: dict[str, float]) -> None:
    print(f"harness overhead per turn ({TURNS}-turn scripted session, median of 10 turns)")
    print(f"  at turn 10   {figures['turn_10_ms']:7.2f} ms")
    print(f"  at turn {TURNS}  {figures['turn_300_ms']:7.2f} ms")
    print(f"  ratio        {figures['ratio']:7.2f}  (target under 1.5)")


if __name__ == "__main__":
    report(main())
