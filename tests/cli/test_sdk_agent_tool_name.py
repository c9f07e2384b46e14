"""An SDK program's hooks and `can_use_tool` are told the subagent tool's name as Claude Code
tells it, `Agent`, whether the model called it `Task` or `Agent` (the bundled Claude Code CLI,
run on the fake server, tells its hooks `Agent` for a call to `Task`); a matcher written with
either name still matches. Before, they were told `Task`, and a policy that tests
`tool_name == "Agent"` let a subagent through."""

from __future__ import annotations

import json
from typing import Any

from claude_agent_sdk import (
    HookMatcher,
    PermissionResultAllow,
    ResultMessage,
    ToolPermissionContext,
    query,
)

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


def subagent_call(name: str) -> dict[str, object]:
    return tool_use(name, description="look", prompt="say seven", subagent_type="general-purpose")


async def test_hooks_and_can_use_tool_are_told_agent(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(subagent_call("Task")),
        reply(text("seven")),  # the first subagent's answer
        reply(subagent_call("Agent")),
        reply(text("eight")),  # the second's
        reply(text("done")),
    )
    told: list[tuple[str, str]] = []

    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        told.append((hook_input["hook_event_name"], hook_input["tool_name"]))
        return {}

    async def allow(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        told.append(("can_use_tool", name))
        return PermissionResultAllow()

    async def prompt() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "go"}}

    hooks = {
        "PreToolUse": [HookMatcher(matcher="Agent", hooks=[hook])],
        "PostToolUse": [HookMatcher(matcher="Task", hooks=[hook])],
    }
    asks = json.dumps({"permissions": {"ask": ["Task"]}})  # a subagent is asked for, here
    options = sdk.options(can_use_tool=allow, hooks=hooks, settings=asks)
    transport = sdk._transport(prompt(), options)  # pyright: ignore[reportPrivateUsage]
    messages = [m async for m in query(prompt=prompt(), options=options, transport=transport)]
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert result.result == "done"
    assert (
        told == [("PreToolUse", "Agent"), ("can_use_tool", "Agent"), ("PostToolUse", "Agent")] * 2
    )
