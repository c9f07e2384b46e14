"""Subagents side by side: three Task calls in one response against three one after another.

The fake server waits 300 ms before each answer (a model's latency). Each subagent makes one
tool call (Read) and then answers, so it costs two model calls. In parallel the main agent needs
one response for the three Task calls, the three subagents run at once, then its final answer:
about 4 latencies. One after another it needs 3 x (its call + the subagent's two) + the final
answer: about 10. The ratio is the figure to watch (ideal 2.5); wall times are medians of a few
runs.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from fake_env import fake_env
from tether.cli.setup import RunOptions, build_session
from tether.protocol import TurnFinished, UserInput
from tether.testing import (
    FakeModelServer,
    RecordedRequest,
    Reply,
    ToolCallPart,
    reply,
    text,
    tool_use,
)

LATENCY_S = 0.3
SUBAGENTS = 3
RUNS = int(os.environ.get("BENCH_RUNS", "3"))

Shape = Literal["parallel", "sequential"]


def _task(n: int) -> ToolCallPart:
    return tool_use(
        "Task", description=f"job {n}", prompt=f"job-{n}: read note.txt", subagent_type="Explore"
    )


def _answer(shape: Shape) -> Callable[[RecordedRequest], Reply]:
    """Answers every request from what it holds: no order between subagents is assumed."""

    def answer(request: RecordedRequest) -> Reply:
        messages = request.messages()
        if request.system().startswith("You are tether"):
            done = sum(
                1
                for m in messages
                if isinstance(m.get("content"), list)
                for b in m["content"]
                if b.get("type") == "tool_result"
            )
            if shape == "parallel" and done == 0:
                return reply(*(_task(n) for n in range(SUBAGENTS)))
            if shape == "sequential" and done < SUBAGENTS:
                return reply(_task(done))
            return reply(text("all jobs done"))
        if len(messages) == 1:
            return reply(tool_use("Read", file_path="note.txt"))
        return reply(text("the note says hello"))

    return answer


async def _run_once(server: FakeModelServer, workspace: Path, home: Path, shape: Shape) -> float:
    server.reset()
    server.script(*[_answer(shape)] * (SUBAGENTS * 3 + 1))
    session = build_session(
        RunOptions(
            cwd=workspace,
            permission_mode="bypassPermissions",
            env=fake_env(server, home),
        )
    )
    try:
        started = time.perf_counter()
        async for event in session.submit(UserInput(text="do the three jobs")):
            if isinstance(event, TurnFinished) and event.is_error:
                raise RuntimeError(event.result)
        return time.perf_counter() - started
    finally:
        await session.aclose()


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "note.txt").write_text("hello\n")
        server.latency_s = LATENCY_S
        home = Path(tmp) / "home"
        figures: dict[str, list[float]] = {"parallel": [], "sequential": []}
        for _ in range(RUNS):
            for shape in ("parallel", "sequential"):
                figures[shape].append(asyncio.run(_run_once(server, workspace, home, shape)))
    parallel = statistics.median(figures["parallel"])
    sequential = statistics.median(figures["sequential"])
    return {"parallel_s": parallel, "sequential_s": sequential, "ratio": sequential / parallel}


def report(figures: dict[str, float]) -> None:
    print(
        f"subagents: {SUBAGENTS} Explore agents, each one Read then an answer, "
        f"{int(LATENCY_S * 1000)} ms per model response (median of {RUNS} runs)"
    )
    print(f"  in parallel (one response, {SUBAGENTS} Task calls)  {figures['parallel_s']:6.2f} s")
    print(f"  one after another ({SUBAGENTS} responses)         {figures['sequential_s']:6.2f} s")
    print(f"  ratio                                     {figures['ratio']:6.2f}  (ideal 2.5)")


if __name__ == "__main__":
    report(main())
