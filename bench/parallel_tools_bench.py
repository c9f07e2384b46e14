"""Parallel tool calls: one response asking for five Bash calls of 1 s each.

The figure is the tool phase of the turn: from the moment the response with the five calls was
answered to the moment the next request (carrying the five results) arrived, against the same
five calls made one per response. Run: `.venv/bin/python bench/parallel_tools_bench.py`.
"""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from pathlib import Path

from fake_env import fake_env
from tether.cli.setup import RunOptions, build_session
from tether.protocol import TurnFinished, UserInput
from tether.testing import FakeModelServer, Reply, reply, text, tool_use

CALLS = 5
SECONDS = 1


def _call() -> object:
    return tool_use("Bash", command=f"sleep {SECONDS}")


async def _turn(server: FakeModelServer, workspace: Path, home: Path, script: list[Reply]) -> float:
    server.reset()
    server.script(*script)
    session = build_session(
        RunOptions(
            cwd=workspace,
            permission_mode="bypassPermissions",
            env=fake_env(server, home),
        )
    )
    try:
        async for event in session.submit(UserInput(text="run them")):
            if isinstance(event, TurnFinished) and event.is_error:
                raise RuntimeError(event.result)
    finally:
        await session.aclose()
    requests = server.requests
    # Time spent running tools: between each answer and the request that follows it.
    return sum(
        later.received_at - earlier.answered_at for earlier, later in itertools.pairwise(requests)
    )


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        workspace, home = Path(tmp) / "ws", Path(tmp) / "home"
        workspace.mkdir()
        together = [reply(*(_call() for _ in range(CALLS))), reply(text("done"))]
        one_by_one = [*(reply(_call()) for _ in range(CALLS)), reply(text("done"))]
        parallel = asyncio.run(_turn(server, workspace, home, together))  # type: ignore[arg-type]
        sequential = asyncio.run(_turn(server, workspace, home, one_by_one))  # type: ignore[arg-type]
    return {"parallel_s": parallel, "sequential_s": sequential}


def report(figures: dict[str, float]) -> None:
    print(f"parallel tools: {CALLS} Bash calls of {SECONDS} s each (the sandbox as configured)")
    print(f"  in one response (they run together)   {figures['parallel_s']:6.2f} s   (target 1.3)")
    print(f"  one per response (one after another)   {figures['sequential_s']:6.2f} s")
    ratio = figures["sequential_s"] / figures["parallel_s"]
    print(f"  ratio                                  {ratio:6.2f}")


if __name__ == "__main__":
    report(main())
