"""An SDK MCP tool's failure (one that raises, one that answers `is_error`) as Claude Code
gives it, through the real SDK: the tool_result's content is the tool's text alone, a string
(its text blocks joined by lines), flagged `is_error`, to the client and to the model; only
`tool_use_result` says `Error: `. Before: a list of one block, `Error: ` first."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import ToolResultBlock, UserMessage, create_sdk_mcp_server, tool
from mcp.types import ToolAnnotations

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


def _server() -> Any:
    @tool("boom", "Raises", {})
    async def boom(args: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("kaboom-123")

    @tool("refuse", "Answers is_error", {})
    async def refuse(args: dict[str, Any]) -> dict[str, Any]:
        blocks = [{"type": "text", "text": "bad input"}, {"type": "text", "text": "second"}]
        return {"content": blocks, "is_error": True}

    return create_sdk_mcp_server("calc", tools=[boom, refuse])


async def test_a_failed_sdk_tool_is_its_text_alone(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(tool_use("mcp__calc__boom")),
        reply(tool_use("mcp__calc__refuse")),
        reply(text("done")),
    )
    messages = await sdk.query(
        "go", mcp_servers={"calc": _server()}, permission_mode="bypassPermissions"
    )
    told = [m for m in messages if isinstance(m, UserMessage)]
    assert [(m.content, m.tool_use_result) for m in told] == [
        (
            [ToolResultBlock(tool_use_id="toolu_1", content="kaboom-123", is_error=True)],
            "Error: kaboom-123",
        ),
        (
            [ToolResultBlock(tool_use_id="toolu_2", content="bad input\nsecond", is_error=True)],
            "Error: bad input\nsecond",
        ),
    ]
    sent = [
        {k: v for k, v in b.items() if k != "cache_control"}
        for m in fake_model.requests[2].body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert sent == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": "kaboom-123",
            "is_error": True,
        },
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": "bad input\nsecond",
            "is_error": True,
        },
    ]


async def test_an_sdk_server_is_reported_as_claude_code_reports_it(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """`get_mcp_status`: scope `dynamic`, no configuration, each tool by name with its hints
    under Claude Code's names (before: scope `sdk`, a `config`, tools with descriptions)."""

    @tool("add", "Adds", {"a": int}, annotations=ToolAnnotations(readOnlyHint=True))
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "1"}]}

    fake_model.script(reply(text("hi")))
    server = create_sdk_mcp_server("calc", version="2.3.4", tools=[add])
    async with sdk.client(mcp_servers={"calc": server}) as client:
        await client.query("go")
        [m async for m in client.receive_response()]
        [entry] = (await client.get_mcp_status())["mcpServers"]
    entry.pop("serverInfo", None)  # given when the handshake names the server
    assert entry == {
        "name": "calc",
        "status": "connected",
        "transport": "sdk",
        "scope": "dynamic",
        "source": "sdk",
        "tools": [{"name": "add", "annotations": {"readOnly": True}}],
    }
