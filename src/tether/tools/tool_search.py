"""ToolSearch and CallTool: how the model finds and calls the tools `DeferredTools` holds back
(see `tether.tools.deferred`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import Tool
from tether.tools.context import ToolContext
from tether.tools.deferred import CALL_TOOL, DeferredTools

SEARCH_TOOL = "ToolSearch"
MAX_RESULTS = 5


class ToolSearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1,
        description='Keywords to look for in tool names and descriptions ("git log"), or '
        '"select:NAME,NAME" to get those tools by exact name.',
    )
    max_results: int = Field(default=MAX_RESULTS, ge=1, le=20)


class CallToolInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The exact name ToolSearch gave.")
    arguments: dict[str, Any] = Field(
        default_factory=dict[str, Any], description="The tool's input, matching its schema."
    )


def search_tools(deferred: DeferredTools, summary: str) -> list[Tool]:
    """ToolSearch and CallTool over `deferred`; `summary` says which tools wait there (it is
    part of ToolSearch's description, so it must not change during the session)."""

    async def search(ctx: ToolContext, args: ToolSearchInput) -> str:
        found = deferred.search(args.query, args.max_results)
        if not found:
            return f"No tool matches {args.query!r}. Try other words, fewer of them."
        return "\n\n".join(_describe(t) for t in found) + (
            f"\n\nCall one with {CALL_TOOL}(name=..., arguments={{...}})."
        )

    async def call(ctx: ToolContext, args: CallToolInput) -> str:
        # Reached only when the call could not be resolved to a deferred tool.
        raise ToolError(
            f"{args.name!r} is not a tool CallTool can call. Find the exact name with "
            f"{SEARCH_TOOL} first."
        )

    search_description = (
        "Find tools that are not listed among your tools to save context, and read their "
        f"input schemas. {summary} Search by keywords or with select:NAME; then call a tool "
        f"with {CALL_TOOL}."
    )
    call_description = (
        f"Call a tool found with {SEARCH_TOOL}, by its exact name, with arguments matching "
        "its schema. Permission rules and hooks apply to it under its own name."
    )
    return [
        Tool(SEARCH_TOOL, search_description, ToolSearchInput, search, read_only=True),
        Tool(CALL_TOOL, call_description, CallToolInput, call, read_only=True),
    ]


def _describe(tool: Tool) -> str:
    schema = json.dumps(tool.spec().input_schema, ensure_ascii=False)
    return f"{tool.name}\n{tool.description.strip()}\nInput schema: {schema}"


def defer_summary(tools: Sequence[Tool], group: str) -> str:
    return f"{len(tools)} {group} tools wait there."
