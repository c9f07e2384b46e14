"""A subagent started with Task's `run_in_background`, as Claude Code's, with the real Claude Agent
SDK over the wire: the call returns at once (`async_launched`), the client sees the task's
`task_started` / `task_notification` lines, the model gets the subagent's answer as a
`<task-notification>` at a later request; `stop_task` stops it, and its end wakes the model."""

from __future__ import annotations

from claude_agent_sdk import ResultMessage, UserMessage

from tests.cli.background_agents import (
    FOREVER,
    SUBTASK,
    WAIT_FOR_GO,
    WOKEN,
    launch,
    main_requests,
    replies,
    task_lines,
)
from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, text, tool_use


async def test_a_background_subagent_runs_while_the_model_works_on(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.responder = replies(
        main=[launch(), tool_use("Bash", command="touch go"), text("started")],
        sub=[tool_use("Bash", command=WAIT_FOR_GO), text("SUB-RESULT 42")],
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("find it in the background")
        first = [m async for m in client.receive_response()]
    results = [m.tool_use_result for m in first if isinstance(m, UserMessage)]
    [result] = [r for r in results if isinstance(r, dict) and "agentId" in r]
    assert result["status"] == "async_launched"
    agent_id = result["agentId"]
    assert (result["description"], result["prompt"]) == ("find the answer", SUBTASK)
    # The call returned at once: the main agent went on (and let the waiting subagent go).
    told = [r.tool_results() for r in main_requests(fake_model)]
    assert "Async agent launched successfully." in told[1][0]
    assert [m.result for m in first if isinstance(m, ResultMessage)] == ["started"]
    [started] = [t for t in task_lines(first) if t["subtype"] == "task_started"]
    assert (started["subtype"], started["task_id"]) == ("task_started", agent_id)
    assert (started["task_type"], started["is_backgrounded"]) == ("local_agent", True)
    sdk.assert_lines_parse()


async def test_stop_task_stops_a_background_subagent_and_wakes_the_model(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.responder = replies(
        main=[launch(), text("started"), text("it was stopped"), text("noted")],
        sub=[tool_use("Bash", command=FOREVER), text("never")],
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("start it")
        first = [m async for m in client.receive_response()]
        [started] = [t for t in task_lines(first) if t["subtype"] == "task_started"]
        await client.stop_task(started["task_id"])  # answered once it has stopped
        # As Claude Code: its end wakes the model, in a turn of its own.
        woken = [m async for m in client.receive_response()]
        await client.query("what happened?")
        second = [m async for m in client.receive_response()]
    agent_id = started["task_id"]
    told = main_requests(fake_model)[-2].last_user_text()
    assert WOKEN in told
    assert f"<task-id>{agent_id}</task-id>" in told
    assert "<status>killed</status>" in told
    assert 'Agent "find the answer" was stopped by user' in told
    assert [m.result for m in woken if isinstance(m, ResultMessage)] == ["it was stopped"]
    # As Claude Code says it: stopped, named by what it was for, with no usage.
    [told] = [t for t in task_lines(first + woken) if t["subtype"] == "task_notification"]
    assert (told["status"], told["summary"]) == ("stopped", "find the answer")
    assert "usage" not in told
    assert [m.result for m in second if isinstance(m, ResultMessage)] == ["noted"]
    assert "<task-notification>" not in main_requests(fake_model)[-1].last_user_text()
    sdk.assert_lines_parse()
