"""`interrupt()` while a turn runs stops the background subagents still running too, as the
bundled Claude Code does (checked side by side on the fake server): `task_updated` (killed)
and `task_notification` (stopped) reach the client, no turn is woken for it, and the model
is told at the next prompt. Before, the subagent ran on to its end and its answer was
reported after the program had asked to stop. The real SDK over the wire."""

from __future__ import annotations

import asyncio
from pathlib import Path

from claude_agent_sdk import ResultMessage

from tests.cli.background_agents import FOREVER, launch, main_requests, replies, task_lines
from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, text, tool_use


async def test_interrupt_stops_the_background_subagents_too(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.responder = replies(
        # the main agent waits in a foreground command while the subagent works
        main=[launch(), tool_use("Bash", command="touch main-waits; sleep 600"), text("next")],
        sub=[tool_use("Bash", command=FOREVER), text("never")],
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("start it")
        # Both are at work (the SDK keeps the lines meanwhile): the main agent's command and
        # the subagent's, processes of their own that no event of this test's can tell of.
        started = (workspace / "sub-started", workspace / "main-waits")
        while not all(p.exists() for p in started):  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        await client.interrupt()
        seen = [m async for m in client.receive_response()]
        await client.query("what happened?")
        after = [m async for m in client.receive_response()]
    lines = task_lines([*seen, *after])
    ends = [(t["subtype"], t.get("status") or t.get("patch", {}).get("status")) for t in lines]
    assert ("task_updated", "killed") in ends
    assert ("task_notification", "stopped") in ends
    results = [m for m in [*seen, *after] if isinstance(m, ResultMessage)]
    assert [r.subtype for r in results] == ["error_during_execution", "success"]
    assert [r.result for r in results][-1] == "next"  # no turn was woken between them
    told = main_requests(fake_model)[-1].last_user_text()
    assert "<status>killed</status>" in told
    sdk.assert_lines_parse()
