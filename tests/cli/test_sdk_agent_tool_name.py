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
    SystemMessage,
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


async def test_the_model_is_offered_agent_and_its_history_says_agent(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """As the bundled Claude Code sends it (run on the fake server): the subagent tool is
    offered as `Agent`, and a call the model made as `Task` is `Agent` in the history sent
    back; the client's init still lists `Task`, as Claude Code's does. Before, the model was
    offered `Task`, the name Claude Code's models no longer learn."""
    fake_model.script(
        reply(subagent_call("Task")),
        reply(text("seven")),  # the subagent's answer
        reply(text("done")),
    )
    messages = await sdk.query("go", permission_mode="bypassPermissions")
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert result.result == "done"
    offered = [t["name"] for t in fake_model.requests[0].body["tools"]]
    assert "Agent" in offered
    assert "Task" not in offered
    history = fake_model.requests[-1].messages()
    calls = [b for m in history if m["role"] == "assistant" for b in m["content"]]
    assert [(c["type"], c["name"]) for c in calls] == [("tool_use", "Agent")]
    [init] = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert "Task" in init.data["tools"]
    sdk.assert_lines_parse()
