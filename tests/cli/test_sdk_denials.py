"""`permission_denied` lines as Claude Code writes them, with the real Claude Agent SDK over the
wire: right after the denied call (before its result), only for a rule's or the mode's denial
(none for a hook's or the client's), with `decision_reason_type`."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import (
    HookMatcher,
    PermissionResultDeny,
    ResultMessage,
    ToolPermissionContext,
    query,
)

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


def _flow(sdk: SdkRun) -> list[str]:
    """What tether wrote, line by line, in short: `assistant`, `user`, a denial's type."""
    flow: list[str] = []
    for line in sdk.lines():
        if line["type"] in ("assistant", "user"):
            flow.append(line["type"])
        elif line.get("subtype") == "permission_denied":
            flow.append(f"denied:{line['tool_use_id']}:{line['decision_reason_type']}")
    return flow


async def test_a_modes_and_a_rules_denial_are_told_right_after_the_call(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="rm -f a"), tool_use("Bash", command="touch b")),
        reply(text("done")),
    )
    await sdk.query("go", permission_mode="dontAsk", disallowed_tools=["Bash(rm *)"])
    assert _flow(sdk) == [
        "assistant",
        "assistant",
        "denied:toolu_1:rule",
        "denied:toolu_2:mode",
        "user",
        "user",
        "assistant",
    ]
    [denial] = [
        line
        for line in sdk.lines()
        if line.get("tool_use_id") == "toolu_2" and line.get("subtype") == "permission_denied"
    ]
    assert set(denial) == {
        "type",
        "subtype",
        "tool_name",
        "tool_use_id",
        "decision_reason_type",
        "message",
        "uuid",
        "session_id",
    }
    told = fake_model.requests[1].tool_results()
    assert denial["message"] == told[1]  # what the model was told
    sdk.assert_lines_parse()


async def test_a_hooks_and_the_clients_denials_have_no_line(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="touch by-hook")),
        reply(tool_use("Bash", command="touch by-client")),
        reply(text("done")),
    )

    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        if "by-hook" not in hook_input["tool_input"]["command"]:
            return {}
        output = {"hookEventName": "PreToolUse", "permissionDecision": "deny"}
        return {"hookSpecificOutput": {**output, "permissionDecisionReason": "no"}}

    async def refuse(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultDeny:
        return PermissionResultDeny(message="not this one")

    async def prompt() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "go"}}

    options = sdk.options(can_use_tool=refuse, hooks={"PreToolUse": [HookMatcher(hooks=[hook])]})
    transport = sdk._transport(prompt(), options)  # pyright: ignore[reportPrivateUsage]
    messages = [m async for m in query(prompt=prompt(), options=options, transport=transport)]
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert [d["tool_use_id"] for d in result.permission_denials or []] == ["toolu_1", "toolu_2"]
    assert [f for f in _flow(sdk) if f.startswith("denied")] == []
