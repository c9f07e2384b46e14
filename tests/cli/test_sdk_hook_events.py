"""PermissionRequest and SubagentStart hooks, with the real Claude Agent SDK over the wire:
fired where Claude Code fires them, with its payloads, and their answers applied."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AgentDefinition,
    HookMatcher,
    PermissionResultAllow,
    ResultMessage,
    SystemMessage,
    ToolPermissionContext,
    query,
)

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def _prompt() -> Any:
    yield {"type": "user", "message": {"role": "user", "content": "go"}}


def _base(hook_input: dict[str, Any]) -> dict[str, Any]:
    """The hook input without the fields every event has."""
    common = ("session_id", "transcript_path", "cwd", "permission_mode", "prompt_id")
    return {k: v for k, v in hook_input.items() if k not in common}


async def test_a_permission_request_hook_answers_in_place_of_the_user(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Write", file_path="allowed.txt", content="a")),
        reply(tool_use("Write", file_path="denied.txt", content="d")),
        reply(tool_use("Bash", command="touch asked")),
        reply(text("done")),
    )
    requests: list[dict[str, Any]] = []
    asked: list[str] = []

    async def policy(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        requests.append(_base(hook_input))
        path = hook_input["tool_input"].get("file_path", "")
        if path.endswith("allowed.txt"):
            decision: dict[str, Any] = {"behavior": "allow"}
        elif path.endswith("denied.txt"):
            decision = {"behavior": "deny", "message": "policy: not that file"}
        else:
            return {}  # no opinion: the question goes to can_use_tool
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}

    async def decide(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        asked.append(name)
        if name == "Write":  # the client is asked too (see test_sdk_permission_race)
            await asyncio.Event().wait()  # the hook decides first: this question is withdrawn
        return PermissionResultAllow()

    options = sdk.options(
        can_use_tool=decide, hooks={"PermissionRequest": [HookMatcher(hooks=[policy])]}
    )
    messages = [m async for m in query(prompt=_prompt(), options=options)]

    assert requests[0] == {
        "hook_event_name": "PermissionRequest",
        "tool_name": "Write",
        "tool_input": {"file_path": str(workspace / "allowed.txt"), "content": "a"},
        # A write in the workspace: accept edits for the session, as Claude Code suggests.
        "permission_suggestions": [
            {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
        ],
        "effort": {"level": "medium"},  # Claude Code's default for the 5.5 models
    }
    assert [r["tool_name"] for r in requests] == ["Write", "Write", "Bash"]
    assert asked == ["Write", "Write", "Bash"]  # the Bash call is the one the hook left to it
    assert (workspace / "allowed.txt").read_text() == "a"
    assert not (workspace / "denied.txt").exists()
    assert (workspace / "asked").exists()
    assert "policy: not that file" in fake_model.requests[2].tool_results()[0]
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert [d["tool_name"] for d in result.permission_denials or []] == ["Write"]


async def test_a_permission_request_hook_allows_when_nobody_can_be_asked(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Write", file_path="w.txt", content="x")), reply(text("ok")))

    async def allow(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        decision = {
            "behavior": "allow",
            "updatedInput": {**hook_input["tool_input"], "content": "y"},
        }
        return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}

    await sdk.query("go", hooks={"PermissionRequest": [HookMatcher(hooks=[allow])]})
    assert (workspace / "w.txt").read_text() == "y"


async def test_subagent_start_fires_with_its_payload_and_context(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(tool_use("Task", description="look", prompt="look around", subagent_type="helper")),
        reply(tool_use("Bash", command="echo sub")),
        reply(text("all clear")),
        reply(text("The helper says all clear.")),
    )
    seen: list[tuple[str, dict[str, Any]]] = []

    async def record(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        event = hook_input["hook_event_name"]
        seen.append((event, _base(hook_input)))
        if event == "SubagentStart":
            return {
                "hookSpecificOutput": {
                    "hookEventName": "SubagentStart",
                    "additionalContext": "SUBSTART-CONTEXT",
                }
            }
        return {}

    messages = await sdk.query(
        "review",
        permission_mode="bypassPermissions",
        agents={"helper": AgentDefinition(description="Helps", prompt="You help.", tools=["Bash"])},
        hooks={
            "SubagentStart": [HookMatcher(matcher="helper", hooks=[record])],
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[record])],
        },
    )
    [started] = [
        m for m in messages if isinstance(m, SystemMessage) and m.subtype == "task_started"
    ]
    agent_id = started.data["task_id"]
    assert seen == [
        (
            "SubagentStart",
            {"hook_event_name": "SubagentStart", "agent_id": agent_id, "agent_type": "helper"},
        ),
        (
            "PreToolUse",
            {
                "hook_event_name": "PreToolUse",
                "agent_id": agent_id,
                "agent_type": "helper",
                "tool_name": "Bash",
                "tool_input": {"command": "echo sub"},
                "tool_use_id": "toolu_2",
                "effort": {"level": "medium"},
            },
        ),
    ]
    # The hook's context opens the subagent's conversation, not the caller's.
    assert "SubagentStart:helper hook additional context: SUBSTART-CONTEXT" in (
        fake_model.requests[1].last_user_text()
    )
    assert "SUBSTART-CONTEXT" not in str(fake_model.requests[3].messages())
    sdk.assert_lines_parse()
