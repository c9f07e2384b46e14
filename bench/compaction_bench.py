"""A long session with large tool outputs: does it stay inside the window, does every request
pass the API's rules, and how many compactions does it take?

400 model calls against the fake server with a 40,000-token window; each call reads a file of
about 3,000 tokens. The fake server rejects any request over the window or otherwise invalid.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from fake_env import fake_env
from tether.cli.setup import RunOptions, build_session
from tether.protocol import Notice, TurnFinished, UserInput
from tether.testing import FakeModelServer, RecordedRequest, Reply, reply, text, tool_use

TURNS = int(os.environ.get("BENCH_LONG_TURNS", "400"))
WINDOW = 40_000


async def _run(server: FakeModelServer, workspace: Path, home: Path) -> dict[str, float]:
    calls = 0

    def answer(request: RecordedRequest) -> Reply:
        nonlocal calls
        if "is about to be replaced by a summary" in request.last_user_text():
            return reply(text(f"Summary: read big.txt {calls} times; nothing else happened."))
        calls += 1
        if calls >= TURNS:
            return reply(text("done"))
        return reply(tool_use("Read", file_path="big.txt"))

    server.script(*([answer] * (TURNS * 2)))
    session = build_session(
        RunOptions(
            cwd=workspace,
            env=fake_env(server, home, TETHER_CONTEXT_WINDOW=str(WINDOW)),
            permission_mode="bypassPermissions",
        )
    )
    compactions = 0
    finished: TurnFinished | None = None
    try:
        async for event in session.submit(UserInput(text="read big.txt again and again")):
            if isinstance(event, Notice) and "context compacted" in event.message:
                compactions += 1
            if isinstance(event, TurnFinished):
                finished = event
    finally:
        await session.aclose()
    assert finished is not None
    largest = max(
        (r.usage or {}).get("input_tokens", 0)
        + (r.usage or {}).get("cache_creation_input_tokens", 0)
        + (r.usage or {}).get("cache_read_input_tokens", 0)
        for r in server.requests
    )
    return {
        "model_calls": float(calls),
        "requests": float(len(server.requests)),
        "rejected": float(len(server.rejections)),
        "compactions": float(compactions),
        "largest_prompt_tokens": float(largest),
        "finished_ok": float(not finished.is_error),
    }


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(context_window=WINDOW) as server:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        (workspace / "big.txt").write_text("".join(f"line {i}: {'x' * 40}\n" for i in range(250)))
        return asyncio.run(_run(server, workspace, Path(tmp) / "home"))


def report(figures: dict[str, float]) -> None:
    print(f"long session: {int(figures['model_calls'])} model calls, {WINDOW:,}-token window")
    print(
        f"  requests {int(figures['requests'])}, rejected by the API's rules "
        f"{int(figures['rejected'])}, compactions {int(figures['compactions'])}, "
        f"largest prompt {int(figures['largest_prompt_tokens']):,} tokens, "
        f"finished {'cleanly' if figures['finished_ok'] else 'WITH AN ERROR'}"
    )


if __name__ == "__main__":
    report(main())
