"""Tools offered on demand: when their definitions would take too much of the context, the model
is offered ToolSearch (find a tool and read its schema) and CallTool (call it by name) instead of
each tool. The list of tools sent with every request then never changes, and neither does the
cached prefix that starts with it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError, ToolUseBlock
from tether.tools.base import Tool
from tether.tools.context import ToolContext

SEARCH_TOOL = "ToolSearch"
CALL_TOOL = "CallTool"
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


class DeferredTools:
    """The tools reached through ToolSearch and CallTool, by name."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = {t.name: t for t in tools}

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    def search(self, query: str, limit: int) -> list[Tool]:
        """By exact names (`select:a,b`), or the tools whose name or description hold the
        most of the query's words (a whole-name match first)."""
        if query.startswith("select:"):
            wanted = [n.strip() for n in query.removeprefix("select:").split(",")]
            return [t for n in wanted if (t := self._tools.get(n)) is not None][:limit]
        words = [w for w in re.split(r"[\s,]+", query.lower()) if w]
        scored: list[tuple[int, str, Tool]] = []
        for tool in self._tools.values():
            name, text = tool.name.lower(), f"{tool.name} {tool.description}".lower()
            score = sum(2 if w in name else 1 for w in words if w in text)
            if query.lower() == name:
                score += 100
            if score:
                scored.append((-score, tool.name, tool))
        return [tool for *_, tool in sorted(scored, key=lambda s: (s[0], s[1]))][:limit]

    def resolve(self, call: ToolUseBlock) -> ToolUseBlock:
        """A CallTool call as the call of the tool it names (same id), so that permissions,
        hooks and the display see the real tool; any other call as it is."""
        if call.name != CALL_TOOL or call.input_error is not None or call.input_refused is not None:
            return call
        name, arguments = call.input.get("name"), call.input.get("arguments", {})
        if not isinstance(name, str) or name not in self._tools or not isinstance(arguments, dict):
            return call  # CallTool itself explains what is wrong
        if set(call.input) - {"name", "arguments"}:
            return call
        return call.model_copy(update={"name": name, "input": dict(arguments)})  # pyright: ignore[reportUnknownArgumentType]


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
