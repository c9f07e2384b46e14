"""Tools offered on demand: when their definitions would take too much of the context, the model
is offered ToolSearch (find a tool and read its schema) and CallTool (call it by name) instead of
each tool. The list of tools sent with every request then never changes, and neither does the
cached prefix that starts with it.

The two tools themselves are in `tool_search` (imported only by a session that defers tools:
their input models cost start-up time every other session would pay for nothing)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tether.protocol import ToolUseBlock
from tether.tools.base import Tool

CALL_TOOL = "CallTool"


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
