"""Harness overhead per turn (everything but model and tool time), early and late in a session.

A scripted 300-turn session runs against the fake server, which runs in a process of its own, as
a real API does (in this process its thread would compete with tether for the interpreter, and
its own validation of the whole transcript would be counted as tether's). For each model call,
overhead = time from the previous response being complete to this one being complete, minus the
tools run in between, minus the time the server spent on the request (from its arrival to the
end of the answer). Reported at turn 10 and turn 300: the median over 20 turns around each, and
how much of it is encoding the request body.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from fake_env import fake_env
from tether.cli.setup import RunOptions, build_session
from tether.protocol import MessageCompleted, ToolFinished, ToolStarted, TurnFinished, UserInput
from tether.testing import FakeModelServer, RecordedRequest, Reply, reply, text, tool_use

TURNS = int(os.environ.get("BENCH_TURNS", "300"))
WINDOW = 20

_encode_s: list[float] = []
_wrapped = False


def _time_body_encoding() -> None:
    """Wrap the encoding of request bodies, to report its share."""
    global _wrapped
    import tether.models.anthropic as anthropic_model

    if _wrapped:
        return
    _wrapped = True
    encode = anthropic_model.encode_body

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return encode(*args, **kwargs)
        finally:
            _encode_s.append(time.perf_counter() - started)

    anthropic_model.encode_body = timed  # type: ignore[assignment]


def _answer(request: RecordedRequest) -> Reply:
    if request.index + 1 >= TURNS:
        return reply(text("done"))
    return reply(text(f"step {request.index}"), tool_use("Read", file_path="note.txt"))


def _serve(connection: Connection) -> None:
    """The fake server's process: serve the script, then send back when each request came
    and was answered (perf_counter is one clock for every process here)."""
    with FakeModelServer() as server:
        server.context_window = 100_000_000
        server.script(*([_answer] * TURNS))
        connection.send(server.url)
        connection.recv()
        connection.send([(r.received_at, r.answered_at) for r in server.requests])


async def _run(url: str, workspace: Path, home: Path) -> tuple[list[float], list[float]]:
    env = fake_env(url, home, TETHER_CONTEXT_WINDOW="100000000")
    session = build_session(RunOptions(cwd=workspace, env=env))
    done_at: list[float] = []
    tool_time: list[float] = []
    tool_started = 0.0
    try:
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
    finally:
        await session.aclose()
    return done_at, tool_time


RUNS = int(os.environ.get("BENCH_RUNS", "3"))


def main() -> dict[str, float]:
    """The median of each figure over a few sessions (the machine is shared and noisy)."""
    runs = [_one_session() for _ in range(RUNS)]
    figures = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    figures["ratio"] = statistics.median(run["total_300_ms"] / run["total_10_ms"] for run in runs)
    return figures


def _one_session() -> dict[str, float]:
    _encode_s.clear()
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe()
    process = context.Process(target=_serve, args=(child,))
    process.start()
    try:
        url = parent.recv()
        with tempfile.TemporaryDirectory() as tmp:
            workspace = Path(tmp) / "ws"
            workspace.mkdir()
            (workspace / "note.txt").write_text("a small file\n" * 20)
            _time_body_encoding()
            done_at, tool_time = asyncio.run(_run(url, workspace, Path(tmp) / "home"))
        parent.send("done")
        times: list[tuple[float, float]] = parent.recv()
    finally:
        process.kill()  # ends with this run, whatever happened
        process.join()
    server_time = [answered - received for received, answered in times]
    overheads = [
        done_at[i] - done_at[i - 1] - tool_time[i - 1] - server_time[i]
        for i in range(1, len(done_at))
    ]
    encoding = _encode_s[1 : len(done_at)]

    def at(values: list[float], early: bool) -> float:
        part = values[max(0, 10 - WINDOW // 2) : 10 + WINDOW // 2] if early else values[-WINDOW:]
        return statistics.median(part) * 1000

    return {
        "total_10_ms": at(overheads, True),
        "total_300_ms": at(overheads, False),
        "encode_10_ms": at(encoding, True),
        "encode_300_ms": at(encoding, False),
    }


def report(figures: dict[str, float]) -> None:
    print(
        f"harness overhead per turn ({TURNS}-turn scripted session, fake server in its own "
        f"process, median of {WINDOW} turns, median of {RUNS} sessions, ms)"
    )
    print(f"  {'':34}{'turn 10':>9}{f'turn {TURNS}':>10}{'ratio':>8}")
    for key, label in (
        ("total", "total (everything but model, tools)"),
        ("encode", "  of which: encoding the request"),
    ):
        early, late = figures[f"{key}_10_ms"], figures[f"{key}_300_ms"]
        print(f"  {label:34}{early:9.2f}{late:10.2f}{late / early:8.2f}")
    print(
        f"  ratio of the totals, median over the sessions: {figures['ratio']:.2f}  (target < 1.5)"
    )


if __name__ == "__main__":
    report(main())
