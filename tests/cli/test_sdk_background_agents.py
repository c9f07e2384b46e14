"""A subagent started with Task's `run_in_background`, as Claude Code's, with the real Claude Agent
SDK over the wire: the call returns at once (`async_launched`), the client sees the task's
`task_started` / `task_notification` lines, the model gets the subagent's answer as a
`<task-notification>` at a later request; `stop_task` stops it; `-p` ends with one running."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import Message, ResultMessage, SystemMessage, UserMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process
from tether.testing.recorded import RecordedRequest, content_text

SUBTASK = "SUBTASK: look for the answer"
WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.05; done"
FOREVER = "touch sub-started; while true; do sleep 0.05; done"


def _is_subagent(request: RecordedRequest) -> bool:
    messages = request.messages()
    return bool(messages) and SUBTASK in content_text(messages[0].get("content"))


def _replies(main: list[Turn], sub: list[Turn]) -> Any:
    """Answers by whose request it is: the main agent's and the subagent's steps (counted by
    the replies already in the conversation), whatever order their requests come in."""

    def respond(request: RecordedRequest) -> Turn:
        steps = sub if _is_subagent(request) else main
        done = sum(1 for m in request.messages() if m.get("role") == "assistant")
        return steps[min(done, len(steps) - 1)]

    return respond


def _launch() -> Turn:
    return tool_use(
        "Task",
        description="find the answer",
        prompt=SUBTASK,
        subagent_type="general-purpose",
        run_in_background=True,
    )


def _tasks(messages: list[Message]) -> list[dict[str, Any]]:
    return [
        m.data for m in messages if isinstance(m, SystemMessage) and m.subtype.startswith("task_")
    ]


def _main_requests(fake_model: FakeModelServer) -> list[RecordedRequest]:
    return [r for r in fake_model.requests if not _is_subagent(r)]


async def test_a_background_subagent_runs_while_the_model_works_on(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.responder = _replies(
        main=[_launch(), tool_use("Bash", command="touch go"), text("started")],
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
    told = [r.tool_results() for r in _main_requests(fake_model)]
    assert "Async agent launched successfully." in told[1][0]
    assert [m.result for m in first if isinstance(m, ResultMessage)] == ["started"]
    started = _tasks(first)[0]
    assert (started["subtype"], started["task_id"]) == ("task_started", agent_id)
    assert (started["task_type"], started["is_backgrounded"]) == ("local_agent", True)
    sdk.assert_lines_parse()


async def test_stop_task_stops_a_background_subagent(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.responder = _replies(
        main=[_launch(), text("started"), text("noted")],
        sub=[tool_use("Bash", command=FOREVER), text("never")],
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("start it")
        first = [m async for m in client.receive_response()]
        [started] = [t for t in _tasks(first) if t["subtype"] == "task_started"]
        await client.stop_task(started["task_id"])  # answered once it has stopped
        await client.query("what happened?")
        second = [m async for m in client.receive_response()]
    agent_id = started["task_id"]
    told = _main_requests(fake_model)[-1].last_user_text()
    assert f"<task-id>{agent_id}</task-id>" in told
    assert "<status>killed</status>" in told
    assert "was stopped by the user" in told
    assert [m.result for m in second if isinstance(m, ResultMessage)] == ["noted"]
    sdk.assert_lines_parse()


def test_print_mode_ends_with_a_background_subagent_running(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.responder = _replies(
        main=[_launch(), text("started")],
        sub=[tool_use("Bash", command=FOREVER), text("never")],
    )
    result = run_cli_process(
        [
            "-p",
            "go",
            "--output-format",
            "stream-json",
            "--verbose",
            "--dangerously-skip-permissions",
        ],
        cwd=workspace,
    )
    assert result.exit_code == 0, result.stderr
    lines = result.json_lines()
    assert [line["result"] for line in lines if line["type"] == "result"] == ["started"]
    tasks = [line for line in lines if line.get("subtype", "").startswith("task_")]
    assert tasks[0]["subtype"] == "task_started"
