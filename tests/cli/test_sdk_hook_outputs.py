"""Hook output fields with the real Claude Agent SDK over the wire: a PostToolUse hook's
replacement of a tool's output is what the model reads (`updatedMCPToolOutput` for an MCP
tool, `updatedToolOutput` for any), a Stop hook's `additionalContext` sends the model back to
work, and a field tether does not apply is said to be ignored rather than dropped silently."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import HookMatcher, create_sdk_mcp_server, tool

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

Callback = Any


def _answering(specific: dict[str, Any]) -> Callback:
    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        return {"hookSpecificOutput": specific}

    return hook


def _net_server(calls: list[dict[str, Any]]) -> Any:
    @tool("fetch", "Fetch a page", {"q": str})
    async def fetch(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": "ORIGINAL-OUT"}]}

    return create_sdk_mcp_server("net", tools=[fetch])


async def test_post_tool_use_replaces_an_mcp_tools_output_for_the_model(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    calls: list[dict[str, Any]] = []
    fake_model.script(reply(tool_use("mcp__net__fetch", q="secret")), reply(text("ok")))
    redact = _answering(
        {
            "hookEventName": "PostToolUse",
            "updatedMCPToolOutput": {"content": [{"type": "text", "text": "REDACTED-OUT"}]},
        }
    )
    messages = await sdk.query(
        "go",
        mcp_servers={"net": _net_server(calls)},
        allowed_tools=["mcp__net__fetch"],
        hooks={"PostToolUse": [HookMatcher(matcher="mcp__net__fetch", hooks=[redact])]},
    )
    assert calls == [{"q": "secret"}]
    assert fake_model.requests[1].tool_results() == ["REDACTED-OUT"]
    assert result_of(messages).result == "ok"
    sdk.assert_lines_parse()


async def test_updated_tool_output_replaces_a_builtin_tools_output(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo SECRET-TOKEN")), reply(text("ok")))
    redact = _answering({"hookEventName": "PostToolUse", "updatedToolOutput": "[redacted]"})
    await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        hooks={"PostToolUse": [HookMatcher(matcher="Bash", hooks=[redact])]},
    )
    [result] = fake_model.requests[1].tool_results()
    assert result == "[redacted]"


async def test_an_mcp_only_replacement_on_a_builtin_tool_is_refused_loudly(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo KEPT-OUTPUT")), reply(text("ok")))
    wrong = _answering(
        {
            "hookEventName": "PostToolUse",
            "updatedMCPToolOutput": {"content": [{"type": "text", "text": "nope"}]},
        }
    )
    await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        hooks={"PostToolUse": [HookMatcher(matcher="Bash", hooks=[wrong])]},
    )
    [result] = fake_model.requests[1].tool_results()
    assert "KEPT-OUTPUT" in result
    assert any("updatedMCPToolOutput" in line and "Bash" in line for line in sdk.stderr)


async def test_a_stop_hooks_additional_context_sends_the_model_back(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("first")), reply(text("second")))
    answered: list[bool] = []

    async def once(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        if answered:
            return {}
        answered.append(True)
        return {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "CHECK-TESTS"}}

    messages = await sdk.query("go", hooks={"Stop": [HookMatcher(hooks=[once])]})
    assert len(fake_model.requests) == 2
    assert "CHECK-TESTS" in str(fake_model.requests[1].body["messages"][-1])
    assert result_of(messages).result == "second"


async def test_a_field_tether_does_not_apply_is_reported(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("answer")))
    titled = _answering(
        {"hookEventName": "UserPromptSubmit", "sessionTitle": "My title", "additionalContext": "C1"}
    )
    messages = await sdk.query("go", hooks={"UserPromptSubmit": [HookMatcher(hooks=[titled])]})
    assert result_of(messages).result == "answer"
    # The rest of the answer applies; the field it cannot apply is named.
    assert "C1" in str(fake_model.requests[0].body["messages"])
    assert any("hookSpecificOutput.sessionTitle" in line for line in sdk.stderr)
