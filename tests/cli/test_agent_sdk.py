"""The Claude Agent SDK (Python) driving tether as its CLI, over the wire, against the fake
model server: the 14 cases of the SDK's documentation, each checked for its effect, and every
line tether writes checked with the SDK's own parser."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultError,
    StreamEvent,
    SystemMessage,
    ToolPermissionContext,
    ToolResultBlock,
    UserMessage,
    create_sdk_mcp_server,
    tool,
)

from tests.cli.sdk_harness import SdkRun, result_of
from tether.core.context import BASE_PROMPT
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.mcp_http_server import McpHttpServer


async def test_one_shot_query(sdk: SdkRun, fake_model: FakeModelServer, workspace: Path) -> None:
    fake_model.script(
        reply(text("Let me look."), tool_use("Bash", command="echo hi > out.txt; cat out.txt")),
        reply(text("It says hi.")),
    )
    messages = await sdk.query("what does it say?", permission_mode="bypassPermissions")

    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert init.subtype == "init"
    assert init.data["permissionMode"] == "bypassPermissions"
    assert "Bash" in init.data["tools"]
    assistant = [m for m in messages if isinstance(m, AssistantMessage)]
    assert [type(b).__name__ for m in assistant for b in m.content] == [
        "TextBlock",
        "ToolUseBlock",
        "TextBlock",
    ]
    assert assistant[0].message_id == assistant[1].message_id  # one line per block
    assert assistant[0].model == fake_model.requests[0].body["model"]
    # As Claude Code: each line is written as its block closes, before the reply ends, so
    # none carries the reply's stop reason.
    assert [m.stop_reason for m in assistant] == [None, None, None]
    results = [m for m in messages if isinstance(m, UserMessage)]
    assert results[0].tool_use_result == {
        "stdout": "hi",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    result = result_of(messages)
    assert (result.subtype, result.is_error, result.result, result.num_turns) == (
        "success",
        False,
        "It says hi.",
        2,
    )
    assert result.model_usage is not None
    assert set(result.model_usage) == {fake_model.requests[0].body["model"]}
    assert (workspace / "out.txt").read_text() == "hi\n"
    assert fake_model.requests[1].tool_results() == ["hi"]
    sdk.assert_lines_parse()


async def test_multi_turn_client(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("Paris.")), reply(text("About 2 million.")))
    async with sdk.client() as client:
        await client.query("capital of France?")
        first = [m async for m in client.receive_response()]
        await client.query("and its population?")
        second = [m async for m in client.receive_response()]
    assert result_of(first).result == "Paris."
    assert result_of(second).result == "About 2 million."
    assert result_of(first).session_id == result_of(second).session_id
    # One process served both: the second request carries the first exchange.
    assert [m["role"] for m in fake_model.requests[1].messages()] == ["user", "assistant", "user"]
    assert fake_model.requests[1].last_user_text() == "and its population?"
    sdk.assert_lines_parse()


async def test_can_use_tool_answers_apply(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="touch first")),
        reply(tool_use("Bash", command="touch second")),
        reply(text("done")),
    )
    asked: list[tuple[str, dict[str, Any], str | None]] = []

    async def decide(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        asked.append((name, tool_input, context.tool_use_id))
        if tool_input["command"] == "touch first":
            return PermissionResultAllow(updated_input={"command": "touch changed"})
        return PermissionResultDeny(message="not the second one")

    async def prompt() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "touch them"}}

    options = sdk.options(can_use_tool=decide)
    from claude_agent_sdk import query

    messages = [m async for m in query(prompt=prompt(), options=options)]
    assert asked == [
        ("Bash", {"command": "touch first"}, "toolu_1"),
        ("Bash", {"command": "touch second"}, "toolu_2"),
    ]
    assert (workspace / "changed").exists()
    assert not (workspace / "first").exists()
    assert not (workspace / "second").exists()
    # The client's message reaches the model verbatim, as Claude Code passes it.
    assert fake_model.requests[2].tool_results() == ["not the second one"]
    assert [d["tool_name"] for d in result_of(messages).permission_denials or []] == ["Bash"]


async def test_sdk_hook_denies_a_call(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch blocked")), reply(text("ok")))
    seen: list[dict[str, Any]] = []

    async def guard(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen.append(hook_input)
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "no touching here",
            }
        }

    messages = await sdk.query(
        "touch it",
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])]},
        include_hook_events=True,
    )
    assert [(h["hook_event_name"], h["tool_name"], h["tool_input"]) for h in seen] == [
        ("PreToolUse", "Bash", {"command": "touch blocked"})
    ]
    assert not (workspace / "blocked").exists()
    assert "no touching here" in fake_model.requests[1].tool_results()[0]
    hook_lines = [m.subtype for m in messages if isinstance(m, SystemMessage)]
    # As Claude Code: the client's own callbacks are not reported back to it as hook lines.
    assert not [line for line in hook_lines if line.startswith("hook_")]
    sdk.assert_lines_parse()


async def test_allowed_tools(sdk: SdkRun, fake_model: FakeModelServer, workspace: Path) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="touch allowed"), tool_use("Bash", command="touch other")),
        reply(text("ok")),
    )
    messages = await sdk.query("go", allowed_tools=["Bash(touch allowed)"])
    assert (workspace / "allowed").exists()
    assert not (workspace / "other").exists()
    denials = result_of(messages).permission_denials or []
    assert [d["tool_input"] for d in denials] == [{"command": "touch other"}]


async def test_permission_modes(sdk: SdkRun, fake_model: FakeModelServer, workspace: Path) -> None:
    write = tool_use("Write", file_path="notes.md", content="hello\n")
    fake_model.script(reply(write), reply(text("planned")), reply(write), reply(text("written")))
    await sdk.query("write notes", permission_mode="plan")
    assert not (workspace / "notes.md").exists()
    assert fake_model.requests[1].tool_result_errors() == [True]
    async with sdk.client(permission_mode="plan") as client:
        await client.set_permission_mode("acceptEdits")
        await client.query("write notes")
        messages = [m async for m in client.receive_response()]
    assert (workspace / "notes.md").read_text() == "hello\n"
    assert messages[0].data["permissionMode"] == "acceptEdits"  # type: ignore[union-attr]


async def test_max_turns(sdk: SdkRun, fake_model: FakeModelServer, workspace: Path) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch late")), reply(text("never")))
    messages: list[Any] = []

    async def run() -> None:
        async for message in _stream(sdk, "go", max_turns=1, permission_mode="bypassPermissions"):
            messages.append(message)

    with pytest.raises(ResultError):
        await run()
    result = result_of(messages)
    # As Claude Code: the last reply's call runs, then the turn stops (test_sdk_turns).
    assert (result.subtype, result.is_error, result.num_turns) == ("error_max_turns", True, 2)
    assert result.errors == ["Reached maximum number of turns (1)"]
    assert (workspace / "late").exists()
    assert len(fake_model.requests) == 1


async def test_in_process_mcp_server(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    calls: list[dict[str, Any]] = []

    @tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    fake_model.script(reply(tool_use("mcp__calc__add", a=2, b=3)), reply(text("5")))
    messages = await sdk.query(
        "add 2 and 3",
        mcp_servers={"calc": create_sdk_mcp_server("calc", tools=[add])},
        allowed_tools=["mcp__calc__add"],
    )
    assert calls == [{"a": 2, "b": 3}]
    assert "mcp__calc__add" in fake_model.requests[0].tool_names()
    assert fake_model.requests[1].tool_results() == ["5"]
    # As Claude Code shows an MCP tool's result: a list of blocks, no error flag.
    [result] = [m for m in messages if isinstance(m, UserMessage)]
    assert isinstance(result.content, list)
    [block] = result.content
    assert isinstance(block, ToolResultBlock)
    assert (block.content, block.is_error) == ([{"type": "text", "text": "5"}], None)
    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert init.data["mcp_servers"] == [{"name": "calc", "status": "connected", "source": "sdk"}]
    sdk.assert_lines_parse()


async def test_interrupt_stops_a_running_tool(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="touch started; sleep 60; touch finished")),
        reply(text("after the interrupt")),
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("run it")
        first: list[Any] = []
        async for message in client.receive_response():
            first.append(message)
            if isinstance(message, AssistantMessage):
                await _until(lambda: (workspace / "started").exists())
                await client.interrupt()
        await client.query("what happened?")
        second = [m async for m in client.receive_response()]
    interrupted = result_of(first)
    assert (interrupted.subtype, interrupted.is_error) == ("error_during_execution", True)
    assert not (workspace / "finished").exists()
    assert result_of(second).result == "after the interrupt"
    assert "Interrupted" in fake_model.requests[1].tool_results()[0]


async def test_custom_system_prompt(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("Arr.")))
    await sdk.query("hello", system_prompt="You are a pirate. Answer in one word.")
    system = fake_model.requests[0].system()
    assert system.startswith("You are a pirate. Answer in one word.")
    assert BASE_PROMPT.splitlines()[0] not in system


async def test_external_mcp_server(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(tool_use("mcp__demo__add", a=40, b=2)), reply(text("42")))
    with McpHttpServer() as server:
        messages = await sdk.query(
            "add",
            mcp_servers={"demo": {"type": "http", "url": server.url}},
            allowed_tools=["mcp__demo"],
        )
    assert fake_model.requests[1].tool_results() == ["42"]
    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert init.data["mcp_servers"] == [
        {"name": "demo", "status": "connected", "source": "dynamic"}
    ]


async def test_programmatic_agents(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(tool_use("Task", description="look", prompt="look around", subagent_type="reviewer")),
        reply(tool_use("Bash", command="echo sub")),
        reply(text("all clear")),
        reply(text("The reviewer says all clear.")),
    )
    messages = await sdk.query(
        "review",
        permission_mode="bypassPermissions",
        agents={
            "reviewer": AgentDefinition(description="Reviews", prompt="You review.", tools=["Bash"])
        },
    )
    assert fake_model.requests[1].system().startswith("You review.")
    assert fake_model.requests[1].tool_names() == ["Bash"]
    subagent = [m for m in messages if getattr(m, "parent_tool_use_id", None) == "toolu_1"]
    assert [type(m).__name__ for m in subagent] == [
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
    ]
    tasks = [m for m in messages if isinstance(m, SystemMessage) and m.subtype.startswith("task_")]
    # The subagent's life as Claude Code tells it: started, its progress at each call, its
    # state changed, notified.
    assert [(t.subtype, t.data.get("tool_use_id")) for t in tasks] == [
        ("task_started", "toolu_1"),
        ("task_progress", "toolu_1"),
        ("task_updated", None),
        ("task_notification", "toolu_1"),
    ]
    task_id = tasks[0].data["task_id"]
    assert [t.data["task_id"] for t in tasks] == [task_id] * 4
    assert (tasks[1].data["description"], tasks[1].data["last_tool_name"]) == (
        "Running echo sub",
        "Bash",
    )
    assert tasks[2].data["patch"]["status"] == "completed"
    assert isinstance(tasks[2].data["patch"]["end_time"], int)
    assert tasks[3].data["status"] == "completed"
    assert tasks[3].data["summary"] == "all clear"
    assert result_of(messages).result == "The reviewer says all clear."
    sdk.assert_lines_parse()


async def test_partial_messages(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(text("hello there"), tool_use("Bash", command="true")), reply(text("ok"))
    )
    messages = await sdk.query(
        "hi", include_partial_messages=True, permission_mode="bypassPermissions"
    )
    events = [m.event for m in messages if isinstance(m, StreamEvent)]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start"
    assert kinds.count("message_stop") == 2
    streamed = "".join(
        e["delta"]["text"]
        for e in events
        if e["type"] == "content_block_delta" and "text" in e["delta"]
    )
    assert streamed == "hello thereok"
    tool_json = [
        e["delta"]["partial_json"]
        for e in events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta"
    ]
    assert json.loads("".join(tool_json)) == {"command": "true"}
    sdk.assert_lines_parse()


async def test_setting_sources(sdk: SdkRun, fake_model: FakeModelServer, workspace: Path) -> None:
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(touch *)"]}})
    )
    fake_model.script(
        reply(tool_use("Bash", command="touch without")),
        reply(text("ok")),
        reply(tool_use("Bash", command="touch with")),
        reply(text("ok")),
    )
    await sdk.query("go", setting_sources=[], permission_mode="bypassPermissions")
    await sdk.query("go", setting_sources=["project"], permission_mode="bypassPermissions")
    assert (workspace / "without").exists()
    assert not (workspace / "with").exists()


async def _stream(sdk: SdkRun, prompt: str, **overrides: Any) -> Any:
    from claude_agent_sdk import query

    options = sdk.options(**overrides)
    async for message in query(
        prompt=prompt, options=options, transport=sdk._transport(prompt, options)
    ):
        yield message


async def _until(condition: Any) -> None:
    for _ in range(2000):  # polls a file another process writes; bounded so nothing hangs
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")
