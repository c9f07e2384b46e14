"""An MCP session's servers as tether tools: each server tool, and Claude Code's two resource
tools. Imported with the MCP manager, only by a session with servers to run (their input
models would cost every other start-up)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import BareToolError, ToolError
from tether.tools.any_arguments import AnyArguments
from tether.tools.base import ANY_ARGUMENTS, Tool, ToolOutput
from tether.tools.context import ToolContext

if TYPE_CHECKING:  # the MCP SDK: imported by the session that runs servers, not here
    from tether.mcp.manager import McpManager, McpTool


def mcp_tool(manager: McpManager, info: McpTool) -> Tool:
    async def call(ctx: ToolContext, args: AnyArguments) -> ToolOutput:
        result = await manager.call(info.exposed, args.arguments())
        if result.is_error:  # its text alone, as Claude Code gives it (no `Error: `)
            raise BareToolError(result.text)
        # Claude Code gives clients an MCP tool's result as its content blocks.
        text = [{"type": "text", "text": result.text}] if result.text or not result.images else []
        blocks = [*text, *(image.model_dump(mode="json") for image in result.images)]
        return ToolOutput(
            result.text, images=result.images, structured=blocks, full_chars=result.full_chars
        )

    description = (
        info.description.strip() or f"The {info.name} tool of the MCP server {info.server}."
    )
    return Tool(
        info.exposed, description, ANY_ARGUMENTS, call, read_only=False, schema=info.input_schema
    )


class ListResourcesInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    server: str | None = Field(default=None, description="Only this server's resources.")


class ReadResourceInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    server: str = Field(description="The server the resource belongs to.")
    uri: str = Field(description="The resource's URI, as ListMcpResourcesTool gave it.")


def resource_tools(manager: McpManager) -> list[Tool]:
    """Claude Code's two resource tools: list the servers' resources, read one."""

    async def list_resources(ctx: ToolContext, args: ListResourcesInput) -> str:
        found = await manager.list_resources(args.server)
        if not found:
            return "No resources."
        return "\n".join(json.dumps(dataclasses.asdict(r), ensure_ascii=False) for r in found)

    async def read_resource(ctx: ToolContext, args: ReadResourceInput) -> str:
        result = await manager.read_resource(args.server, args.uri)
        if result.is_error:
            raise ToolError(result.text)
        return result.text

    return [
        Tool(
            "ListMcpResourcesTool",
            "List the resources (files, records, documents) the connected MCP servers offer.",
            ListResourcesInput,
            list_resources,
            read_only=True,
        ),
        Tool(
            "ReadMcpResourceTool",
            "Read one resource of an MCP server by its URI.",
            ReadResourceInput,
            read_resource,
            read_only=True,
        ),
    ]


CHARS_PER_TOKEN = 4


def is_hidden(name: str, hidden: frozenset[str]) -> bool:
    """Named bare in a deny rule, itself or its server (`mcp__server`)."""
    return name in hidden or any(
        h.startswith("mcp__") and name.startswith(f"{h}__") for h in hidden
    )


def definition_tokens(tools: Sequence[Tool]) -> int:
    """About how many tokens the tools' definitions take in every request."""
    size = sum(
        len(t.name) + len(t.description) + len(json.dumps(t.spec().input_schema)) for t in tools
    )
    return size // CHARS_PER_TOKEN
