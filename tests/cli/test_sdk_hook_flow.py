"""What hooks decide about the turn, with the real Claude Agent SDK over the wire: `continue:
false` from any event ends the turn after the step under way (callbacks and command hooks
alike), a callback that does not answer in time keeps its call from running (a command hook's
timeout does not), and hooks' `additionalContext` reaches the model beside the results."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import HookMatcher, SystemMessage

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

Callback = Any


def _two_calls(fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="touch first")),
        reply(tool_use("Bash", command="touch second")),
        reply(text("never asked")),
    )


def _answering(answer: dict[str, Any]) -> Callback:
    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        return answer

    return hook


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
async def test_continue_false_from_a_callback_ends_the_turn_after_the_call(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, event: str
) -> None:
    _two_calls(fake_model)
    stop = _answering({"continue": False, "stopReason": "enough for today"})
    messages = await sdk.query(
        "go", permission_mode="bypassPermissions", hooks={event: [HookMatcher(hooks=[stop])]}
    )
    # As Claude Code: the call the hook saw still runs; the model is not called again.
    assert (workspace / "first").exists()
    assert not (workspace / "second").exists()
    assert len(fake_model.requests) == 1
    result = result_of(messages)
    assert (result.subtype, result.is_error) == ("success", False)
    # Said by the result, as Claude Code says it (no notice line: see test_sdk_hook_stop_reason).
    [line] = [line for line in sdk.lines() if line["type"] == "result"]
    assert line["terminal_reason"] == "hook_stopped"
    sdk.assert_lines_parse()


async def test_continue_false_from_a_command_hook_ends_the_turn(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    _two_calls(fake_model)
    answer = json.dumps({"continue": False, "stopReason": "command says stop"})
    hook = {"type": "command", "command": f"echo '{answer}'"}
    settings = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    await sdk.query("go", permission_mode="bypassPermissions", settings=json.dumps(settings))
    assert (workspace / "first").exists()
    assert not (workspace / "second").exists()
    assert len(fake_model.requests) == 1


async def test_continue_false_wins_over_a_stop_hook_asking_to_go_on(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("first answer")), reply(text("second answer")))
    stop = _answering({"decision": "block", "reason": "keep going", "continue": False})
    messages = await sdk.query("go", hooks={"Stop": [HookMatcher(hooks=[stop])]})
    assert len(fake_model.requests) == 1
    assert result_of(messages).result == "first answer"


async def test_a_blocked_prompt_is_dropped_and_the_turn_succeeds(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("answered")))
    block = _answering({"decision": "block", "reason": "prompt not allowed"})
    async with sdk.client(hooks={"UserPromptSubmit": [HookMatcher(hooks=[block])]}) as client:
        await client.query("secret plans")
        blocked = [m async for m in client.receive_response()]
    result = result_of(blocked)
    assert (result.subtype, result.is_error, result.num_turns) == ("success", False, 0)
    assert result.result == (
        "UserPromptSubmit operation blocked by hook:\nprompt not allowed\n\n"
        "Original prompt: secret plans"
    )
    assert fake_model.requests == []
    # Claude Code's line for it: `informational`, with what became of the prompt.
    [said] = [line for line in sdk.lines() if line.get("subtype") == "informational"]
    assert said["content"] == result.result
    assert said["level"] == "warning"
    assert said["prevent_continuation"] is True
    assert said["prompt_submit_outcome"] == {
        "kind": "blocked_by_hook",
        "prompt_kept": False,
        "reason": "prompt not allowed",
    }
    assert not [line for line in sdk.lines() if line.get("subtype") == "notice"]
    assert [m for m in blocked if isinstance(m, SystemMessage) and m.subtype == "informational"]
    sdk.assert_lines_parse()


async def test_a_callback_that_times_out_keeps_its_call_from_running(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch ran")), reply(text("ok")))

    async def silent(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        await asyncio.sleep(30)
        return {}

    await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [HookMatcher(hooks=[silent], timeout=1)]},
    )
    assert not (workspace / "ran").exists()
    [result] = fake_model.requests[1].tool_results()
    assert fake_model.requests[1].tool_result_errors() == [True]
    assert "did not answer within its timeout (1 s" in result
    assert "the tool call was not run" in result


async def test_a_command_hook_that_times_out_lets_its_call_run(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    # Claude Code's documented contract: a command hook's timeout is an error shown to the
    # user, not a block (unless the hook is fail-closed).
    fake_model.script(reply(tool_use("Bash", command="touch ran")), reply(text("ok")))
    slow = f"{sys.executable} -c 'import time; time.sleep(30)'"
    hook = {"type": "command", "command": slow, "timeout": 1}
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    await sdk.query("go", permission_mode="bypassPermissions", settings=json.dumps(settings))
    assert (workspace / "ran").exists()
    assert any("timed out after 1 s" in line for line in sdk.stderr)


async def test_hook_context_reaches_the_model_beside_the_result(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("ok")))

    def context(event: str, words: str) -> Callback:
        return _answering(
            {"hookSpecificOutput": {"hookEventName": event, "additionalContext": words}}
        )

    messages = await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        include_hook_events=True,
        hooks={
            "PreToolUse": [HookMatcher(hooks=[context("PreToolUse", "PRE-CONTEXT")])],
            "PostToolUse": [HookMatcher(hooks=[context("PostToolUse", "POST-CONTEXT")])],
        },
    )
    request = fake_model.requests[1]
    assert request.tool_results() == ["hi"]  # what the command printed, nothing added
    notes = request.last_user_text()
    assert "PreToolUse:Bash hook additional context: PRE-CONTEXT" in notes
    assert "PostToolUse:Bash hook additional context: POST-CONTEXT" in notes
    hooks = [m.subtype for m in messages if isinstance(m, SystemMessage)]
    assert hooks.count("hook_response") == 0  # callbacks: not reported back, as Claude Code
