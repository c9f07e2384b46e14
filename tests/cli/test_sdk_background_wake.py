"""A background subagent that outlives the turn that started it, as the bundled Claude Code CLI
does on the same script (checked side by side): its lines still reach the client (its messages,
`task_progress`, `task_updated`, `task_notification`, `background_tasks_changed`); its end wakes
the idle model for a turn of its own, with its result; `-p`, and stream-json input that ends,
wait for it and that turn before the process exits, with a session file that resumes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import AssistantMessage, PermissionResultAllow, ResultMessage

from tests.cli.background_agents import (
    WAIT_FOR_GO,
    WOKEN,
    launch,
    main_requests,
    replies,
    task_lines,
)
from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import run_cli_process

SUB = [tool_use("Bash", command=WAIT_FOR_GO, description="wait for go"), text("SUB-RESULT 42")]


def _go_at_last_main_step(workspace: Path) -> Any:
    """Let the subagent finish once the main agent's last step of its turn is answered: after
    that request was made, so that its end is news for a turn of its own."""

    def on_main(step: int) -> None:
        if step == 1:
            (workspace / "go").touch()

    return on_main


async def test_an_idle_session_streams_the_subagents_end_and_wakes_the_model(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.responder = replies(
        main=[launch(), text("started"), text("WOKE: got it"), text("again")], sub=SUB
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("find it in the background")
        first = [m async for m in client.receive_response()]
        (workspace / "go").touch()  # the turn is over: the subagent ends while none runs
        woken = [m async for m in client.receive_response()]
        await client.query("and now?")
        last = [m async for m in client.receive_response()]
    assert [m.result for m in first if isinstance(m, ResultMessage)] == ["started"]
    [wake_result] = [m for m in woken if isinstance(m, ResultMessage)]
    assert wake_result.result == "WOKE: got it"
    # As Claude Code: what started the turn (the SDK's `origin`); a client's turn has none.
    assert wake_result.origin == {"kind": "task-notification", "producer": "session-task"}
    assert [(m.result, m.origin) for m in last if isinstance(m, ResultMessage)] == [("again", None)]
    # The subagent's last reply, after the turn that started it, reaches the client. (Its
    # first, the call it waits in, may come before the turn's result or after it.)
    *_, answer = [
        m
        for m in first + woken
        if isinstance(m, AssistantMessage) and m.parent_tool_use_id == "toolu_1"
    ]
    assert any(m is answer for m in woken)
    assert answer.content[0].text == "SUB-RESULT 42"  # type: ignore[union-attr]
    tasks = task_lines(first + woken)
    kinds = [t["subtype"] for t in tasks]
    assert kinds == [
        "background_tasks_changed",
        "task_started",
        "task_progress",
        "task_updated",
        "task_notification",
        "background_tasks_changed",
    ]
    [running, _started, progress, _updated, told, none] = tasks
    agent_id = _started["task_id"]
    assert running["tasks"] == [
        {
            "task_id": agent_id,
            "run_id": _started["run_id"],
            "task_type": "local_agent",
            "subagent_type": "general-purpose",
            "description": "find the answer",
        }
    ]
    assert (progress["description"], progress["last_tool_name"]) == ("Running wait for go", "Bash")
    assert (progress["tool_use_id"], progress["usage"]["tool_uses"]) == ("toolu_1", 1)
    assert (told["status"], told["summary"]) == ("completed", "SUB-RESULT 42")
    assert told["summary_is_report"] is True
    # Its size, as Claude Code counts it: its last reply's context and output.
    assert answer.usage is not None
    last_reply = sum(
        answer.usage[k]
        for k in (
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        )
    )
    assert told["usage"]["total_tokens"] == last_reply
    assert none["tasks"] == []
    # The wake turn's prompt is Claude Code's system notification, with the result.
    wake = main_requests(fake_model)[2].last_user_text()
    assert wake.startswith(f"<system-reminder>\n{WOKEN}")
    assert f"<task-id>{agent_id}</task-id>" in wake
    assert "<result>SUB-RESULT 42</result>" in wake
    assert "task-notification" not in main_requests(fake_model)[3].last_user_text()
    # As Claude Code: the session stays running (not idle) until the subagent's turn ended.
    states = [
        (line.get("state"), line.get("result"))
        for line in sdk.lines()
        if line.get("subtype") == "session_state_changed" or line["type"] == "result"
    ]
    # (What follows the last result may come after the client stopped reading.) Between the
    # woken turn and the client's next prompt, idle is said only if that prompt was not yet
    # on its way (as Claude Code: never idle while a prompt waits): either is right.
    assert states[:3] == [("running", None), (None, "started"), (None, "WOKE: got it")]
    after = states[3:]
    if after[:2] == [("idle", None), ("running", None)]:
        after = after[2:]
    assert after[:1] == [(None, "again")]
    sdk.assert_lines_parse()


async def test_a_one_shot_query_waits_for_the_subagent_and_its_turn(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    # The SDK closes tether's input at once: the process still serves what runs.
    fake_model.responder = replies(
        main=[launch(), text("started"), text("WOKE: got it")],
        sub=SUB,
        on_main=_go_at_last_main_step(workspace),
    )
    messages = await sdk.query("find it", permission_mode="bypassPermissions")
    results = [m.result for m in messages if isinstance(m, ResultMessage)]
    assert results == ["started", "WOKE: got it"]
    assert "<result>SUB-RESULT 42</result>" in main_requests(fake_model)[-1].last_user_text()
    sdk.assert_lines_parse()


def test_print_mode_waits_for_the_subagent_and_its_turn(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.responder = replies(
        main=[launch(), text("started"), text("WOKE: got it"), text("resumed")],
        sub=SUB,
        on_main=_go_at_last_main_step(workspace),
    )
    flags = ["--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"]
    result = run_cli_process(["-p", "go", *flags], cwd=workspace)
    assert result.exit_code == 0, result.stderr
    lines = result.json_lines()
    kinds = [(line["type"], line.get("subtype"), line.get("parent_tool_use_id")) for line in lines]
    # As Claude Code: the subagent's end, then the turn it wakes, then both results.
    answer = kinds.index(("assistant", None, "toolu_1"), kinds.index(("user", None, "toolu_1")))
    told = kinds.index(("system", "task_notification", None))
    second_init = [i for i, k in enumerate(kinds) if k[1] == "init"][1]
    assert answer < told < second_init
    assert [line["result"] for line in lines if line["type"] == "result"] == [
        "started",
        "WOKE: got it",
    ]
    assert kinds[-2:] == [("result", "success", None)] * 2
    origins = [line.get("origin") for line in lines if line["type"] == "result"]
    assert origins == [None, {"kind": "task-notification", "producer": "session-task"}]
    wake = main_requests(model_env)[2].last_user_text()
    assert WOKEN in wake
    assert "<result>SUB-RESULT 42</result>" in wake
    # The session file holds both turns and resumes.
    session_id = lines[0]["session_id"]
    again = run_cli_process(
        ["-p", "and?", "--resume", session_id, "--output-format", "json"], cwd=workspace
    )
    assert again.exit_code == 0, again.stderr
    assert again.json()["result"] == "resumed"
    said = str(main_requests(model_env)[-1].messages())
    assert "SUB-RESULT 42" in said
    assert "WOKE: got it" in said


async def test_a_background_subagent_asks_the_client_after_its_turn_ended(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    asked: list[str] = []

    async def allow(tool: str, tool_input: dict[str, Any], _context: Any) -> PermissionResultAllow:
        asked.append(f"{tool}: {tool_input.get('command', '')}")
        return PermissionResultAllow()

    fake_model.responder = replies(
        main=[launch(), text("started"), text("WOKE: got it")],
        sub=[SUB[0], tool_use("Bash", command="touch after"), SUB[1]],
    )
    async with sdk.client(can_use_tool=allow) as client:
        await client.query("find it in the background")
        first = [m async for m in client.receive_response()]
        (workspace / "go").touch()  # its next call is asked about with no turn running
        woken = [m async for m in client.receive_response()]
    assert [m.result for m in first if isinstance(m, ResultMessage)] == ["started"]
    assert "Bash: touch after" in asked
    assert (workspace / "after").exists()
    assert [m.result for m in woken if isinstance(m, ResultMessage)] == ["WOKE: got it"]
    sdk.assert_lines_parse()
