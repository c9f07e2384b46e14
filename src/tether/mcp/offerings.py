"""What a connected server offers, as tether keeps it: its tools (each checked on its own: one
tether cannot offer the model is left out with a problem) and its prompts. Plain records, read
from the wire's JSON, whichever client read them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from tether.mcp.catalog import McpPromptArgument

MAX_PAGES = 100
"""A server whose listing never stops paging is read this far."""

EMPTY_SCHEMA: Mapping[str, Any] = {"type": "object", "properties": {}}
"""The input schema of a tool that has none."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool as its server describes it, checked."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool
    annotations: Mapping[str, bool] = field(default_factory=dict[str, bool])
    """Its hints as Claude Code reports them (`readOnly`, `destructive`, `openWorld`)."""


@dataclass(frozen=True)
class PromptSpec:
    """One prompt as its server describes it."""

    name: str
    description: str = ""
    arguments: tuple[McpPromptArgument, ...] = ()


@dataclass(frozen=True)
class Listing:
    tools: tuple[ToolSpec, ...]
    prompts: tuple[PromptSpec, ...]
    problems: tuple[str, ...]
    """Tools left out and listings that failed, each a sentence naming the server."""
    server_info: Mapping[str, Any] | None = None
    """The server's `serverInfo` from the handshake (name, version), when it gave one."""


def check_tool(server: str, raw: Mapping[str, Any]) -> ToolSpec | str:
    """The tool, or why it is left out. Its input schema must be a JSON object schema (what
    the model APIs take); a tool with none takes no arguments."""
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return f'MCP server "{server}": a tool without a name is left out'
    schema = raw.get("inputSchema")
    if schema is None:
        schema = dict(EMPTY_SCHEMA)
    elif not isinstance(schema, dict) or schema.get("type") != "object":
        return (
            f'MCP server "{server}": tool "{name}" is left out: its input schema is not '
            'a JSON object with "type": "object"'
        )
    description = raw.get("description")
    annotations = raw.get("annotations")
    read_only = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
    hints = cast(dict[str, Any], annotations) if isinstance(annotations, dict) else {}
    return ToolSpec(
        name=name,
        description=description if isinstance(description, str) else "",
        input_schema=schema,
        read_only=read_only,
        annotations={
            said: hints[hint] for hint, said in _HINTS.items() if isinstance(hints.get(hint), bool)
        },
    )


_HINTS = {
    "readOnlyHint": "readOnly",
    "destructiveHint": "destructive",
    "openWorldHint": "openWorld",
}
"""A tool's MCP hints and Claude Code's names for them (`mcp_status`)."""


def check_tools(
    server: str, listed: list[Mapping[str, Any]]
) -> tuple[list[ToolSpec], list[int], list[str]]:
    """The usable tools, the indexes in `listed` they came from, and the problems."""
    tools: list[ToolSpec] = []
    kept: list[int] = []
    problems: list[str] = []
    for index, raw in enumerate(listed):
        checked = check_tool(server, raw)
        if isinstance(checked, str):
            problems.append(checked)
        elif any(tool.name == checked.name for tool in tools):
            problems.append(f'MCP server "{server}": tool "{checked.name}" is listed twice')
        else:
            tools.append(checked)
            kept.append(index)
    return tools, kept, problems


def prompt_spec(raw: Mapping[str, Any]) -> PromptSpec | None:
    """A prompt from its wire JSON; None without a name."""
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return None
    arguments: list[McpPromptArgument] = []
    listed = raw.get("arguments")
    for arg in listed if isinstance(listed, list) else ():
        if isinstance(arg, dict) and isinstance(arg.get("name"), str):
            described = arg.get("description")
            arguments.append(
                McpPromptArgument(
                    arg["name"],
                    described if isinstance(described, str) else "",
                    arg.get("required") is True,
                )
            )
    described = raw.get("description")
    return PromptSpec(name, described if isinstance(described, str) else "", tuple(arguments))


async def raw_pages(
    fetch: Callable[[str | None], Awaitable[Mapping[str, Any]]], key: str
) -> list[Any]:
    """The items under `key` of every page of a paged listing, as wire JSON."""
    found: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        listed = page.get(key)
        if isinstance(listed, list):
            found.extend(listed)
        next_cursor = page.get("nextCursor")
        cursor = next_cursor if isinstance(next_cursor, str) else None
        if cursor is None:
            break
    return found
