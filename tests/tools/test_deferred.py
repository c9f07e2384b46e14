"""Deferred tools: offered through ToolSearch and CallTool, run under their own names."""

from __future__ import annotations

from pathlib import Path

from tether.protocol import ToolUseBlock
from tether.tools.any_arguments import AnyArguments
from tether.tools.base import Tool
from tether.tools.context import ToolContext
from tether.tools.deferred import DeferredTools
from tether.tools.registry import ToolOutcome, ToolRegistry
from tether.tools.tool_search import search_tools


def _tool(name: str, description: str) -> Tool:
    async def handler(ctx: ToolContext, args: AnyArguments) -> str:
        return f"{name} got {args.arguments()}"

    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    return Tool(name, description, AnyArguments, handler, read_only=True, schema=schema)


DEFERRED = DeferredTools(
    [
        _tool("mcp__git__git_log", "Shows the commit logs."),
        _tool("mcp__git__git_status", "Shows the working tree status."),
        _tool("mcp__time__get_current_time", "Get the current time in a timezone."),
    ]
)


def _registry() -> ToolRegistry:
    return ToolRegistry(search_tools(DEFERRED, "3 MCP tools wait there."), deferred=DEFERRED)


def test_only_search_and_call_are_offered() -> None:
    registry = _registry()
    assert [s.name for s in registry.specs()] == ["ToolSearch", "CallTool"]
    assert "3 MCP tools wait there." in registry.specs()[0].description
    assert registry.get("mcp__git__git_log") is not None


def test_search_ranks_name_matches_first_and_selects_by_name() -> None:
    assert [t.name for t in DEFERRED.search("git log", 5)] == [
        "mcp__git__git_log",
        "mcp__git__git_status",
    ]
    assert [t.name for t in DEFERRED.search("timezone", 5)] == ["mcp__time__get_current_time"]
    assert [t.name for t in DEFERRED.search("select:mcp__git__git_status,nope", 5)] == [
        "mcp__git__git_status"
    ]
    assert DEFERRED.search("weather", 5) == []


def test_call_tool_resolves_to_the_named_tool_with_the_same_id() -> None:
    call = ToolUseBlock(
        id="t1", name="CallTool", input={"name": "mcp__git__git_log", "arguments": {"path": "."}}
    )
    assert _registry().resolve(call) == ToolUseBlock(
        id="t1", name="mcp__git__git_log", input={"path": "."}
    )
    other = ToolUseBlock(id="t2", name="ToolSearch", input={"query": "git"})
    assert _registry().resolve(other) is other


async def test_search_shows_schemas_and_unknown_names_are_explained(tmp_path: Path) -> None:
    registry = _registry()
    ctx = ToolContext(workspace=tmp_path, scratch_dir=tmp_path / "scratch")
    found = await registry.run(
        ToolUseBlock(id="s", name="ToolSearch", input={"query": "status"}), ctx
    )
    assert found.content.startswith("mcp__git__git_status\nShows the working tree status.\n")
    assert '"path": {"type": "string"}' in found.content
    wrong = ToolUseBlock(id="c", name="CallTool", input={"name": "git_log", "arguments": {}})
    outcome = await registry.run(registry.resolve(wrong), ctx)
    assert outcome == ToolOutcome(
        "Error: 'git_log' is not a tool CallTool can call. Find the exact name with ToolSearch "
        "first.",
        True,
        None,
        outcome.duration_ms,
    )
    ran = await registry.run(
        registry.resolve(
            ToolUseBlock(
                id="c", name="CallTool", input={"name": "mcp__git__git_log", "arguments": {"n": 1}}
            )
        ),
        ctx,
    )
    assert ran.content == "mcp__git__git_log got {'n': 1}"
