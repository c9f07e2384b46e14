"""A background command as Claude Code's `local_bash` task, with the real Claude Agent SDK over
the wire: `task_started` when it starts; after the client's `stop_task`, `task_updated` and
`task_notification` (stopped), and the model is told of the stop at its next request."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import ResultMessage, SystemMessage, UserMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def test_stop_task_is_told_to_the_client_and_to_the_model(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    command = "while true; do sleep 0.05; done"
    fake_model.script(
        reply(tool_use("Bash", command=command, run_in_background=True)),
        reply(text("started")),
        reply(text("noted")),
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("start it")
        first = [m async for m in client.receive_response()]
        [started] = [m for m in first if isinstance(m, UserMessage) and m.tool_use_result]
        assert started.tool_use_result is not None
        task_id = started.tool_use_result["backgroundTaskId"]
        await client.stop_task(task_id)
        await client.query("what happened?")
        second = [m async for m in client.receive_response()]
    tasks: list[dict[str, Any]] = [
        m.data
        for m in [*first, *second]
        if isinstance(m, SystemMessage) and m.subtype.startswith("task_")
    ]
    assert [(t["subtype"], t["task_id"]) for t in tasks] == [
        ("task_started", task_id),
        ("task_updated", task_id),
        ("task_notification", task_id),
    ]
    assert (tasks[0]["task_type"], tasks[0]["tool_use_id"]) == ("local_bash", "toolu_1")
    assert tasks[1]["patch"]["status"] == "killed"
    assert (tasks[2]["status"], tasks[2]["tool_use_id"]) == ("stopped", "toolu_1")
    # As Claude Code: the notice is no turn of its own.
    assert [m.num_turns for m in second if isinstance(m, ResultMessage)] == [1]
    told = fake_model.requests[2].last_user_text()
    assert f"Background command {task_id}" in told
    assert "was stopped by the user" in told
    sdk.assert_lines_parse()
