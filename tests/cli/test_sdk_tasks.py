"""A background command as Claude Code's `local_bash` task, with the real Claude Agent SDK over
the wire: `task_started` when it starts; after the client's `stop_task`, `task_updated` and
`task_notification` (stopped), and the model is told of the stop at its next request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import ResultMessage, SystemMessage, UserMessage

from tests.cli.background_agents import task_lines
from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use

BACKGROUND = {"run_in_background": True}


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


def both_ended(seen: list[Any]) -> bool:
    """Both commands' ends are told, and then that no task is left running."""
    lines = task_lines(seen)
    notified = sum(t["subtype"] == "task_notification" for t in lines)
    last = lines[-1]
    return notified == 2 and last["subtype"] == "background_tasks_changed" and not last["tasks"]


async def test_a_background_commands_end_is_told_to_the_client(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """As the bundled Claude Code tells it (checked side by side on the fake server): when a
    background command ends by itself, `task_updated` (completed or failed) and a
    `task_notification` naming its output file, its status and its exit code, without usage;
    the set of background tasks (`background_tasks_changed`) as it starts and ends. Before,
    a command's end was told to the model only, and the client never learnt of it."""
    fake_model.script(
        reply(
            tool_use("Bash", command="printf hi; exit 3", description="fail it", **BACKGROUND),
            tool_use("Bash", command="true", **BACKGROUND),
        ),
        reply(text("started")),
    )
    fake_model.responder = reply(text("noted"))  # the turns their ends wake (as Claude Code)
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("start them")
        seen = [m async for m in client.receive_response()]
        if not both_ended(seen):
            async for message in client.receive_messages():  # their ends, whenever they come
                seen.append(message)
                if both_ended(seen):
                    break
        # What they printed, while the session (and its scratch directory) lasts.
        printed = {
            t["task_id"]: Path(t["output_file"]).read_text()
            for t in task_lines(seen)
            if t["subtype"] == "task_notification"
        }
    lines = task_lines(seen)
    by_task: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        if line["subtype"] != "background_tasks_changed":
            by_task.setdefault(line["task_id"], []).append(line)
    assert len(by_task) == 2
    told: dict[str, dict[str, Any]] = {}
    for task in by_task.values():
        started, updated, notification = task
        assert [t["subtype"] for t in task] == ["task_started", "task_updated", "task_notification"]
        assert started["task_type"] == "local_bash"
        assert updated["patch"]["status"] == notification["status"]
        assert notification["tool_use_id"] == started["tool_use_id"]
        assert started["run_id"] == updated["run_id"] == notification["run_id"]
        assert "usage" not in notification
        assert notification["output_file"].endswith(".log")
        told[started["description"]] = notification
    failed, done = told["fail it"], told["true"]
    assert (failed["status"], failed["summary"]) == (
        "failed",
        'Background command "fail it" failed with exit code 3',
    )
    assert (printed[failed["task_id"]], printed[done["task_id"]]) == ("hi", "")
    assert (done["status"], done["summary"]) == (
        "completed",
        'Background command "true" completed (exit code 0)',
    )
    changes = [t["tasks"] for t in lines if t["subtype"] == "background_tasks_changed"]
    assert changes[-1] == []
    assert {(t["task_type"], t["description"]) for c in changes for t in c} == {
        ("local_bash", "fail it"),
        ("local_bash", "true"),
    }
    sdk.assert_lines_parse()
