"""A PostToolUse hook's replacement of a tool's output (`updatedToolOutput`,
`updatedMCPToolOutput`) made into what the model reads instead, or refused with the reason.

As Claude Code: `updatedMCPToolOutput` replaces an MCP tool's output only; `updatedToolOutput`
any tool's. The value may be text, or an MCP tool result (`{"content": [...], "isError":
...}`, what an MCP tool's output is); for a built-in tool an object in the shape of its own
result (`tool_use_result`: Bash's `stdout`, `stderr`...) reads as that JSON. Anything else is
refused loudly and the tool's own output stands.
"""

from __future__ import annotations

import json
from typing import Any, cast

from tether.hooks.spec import UpdatedOutput
from tether.slotted import replaced as copied
from tether.tools.registry import MAX_RESULT_CHARS, ToolOutcome


class Refused(ValueError):
    """A replacement that cannot stand in for the output; the message says why."""


def replaced(tool: str, outcome: ToolOutcome, update: UpdatedOutput) -> ToolOutcome:
    """`outcome` as the model reads it once the hook's replacement is applied."""
    mcp = tool.startswith("mcp__")
    if update.field == "updatedMCPToolOutput" and not mcp:
        raise Refused(f"updatedMCPToolOutput replaces an MCP tool's output only, not {tool}'s")
    value = update.value
    if isinstance(value, str):
        return copied(outcome, content=value, images=(), is_error=False)
    if isinstance(value, dict) and "content" in value:
        return _mcp_result(outcome, cast(dict[str, Any], value))
    if not mcp and isinstance(value, dict) and isinstance(outcome.structured, dict):
        expected = set(cast(dict[str, Any], outcome.structured))
        given = set(cast(dict[str, Any], value))
        if given <= expected:
            text = json.dumps(value, indent=2, ensure_ascii=False)
            return copied(outcome, content=text, images=(), structured=value)
        raise Refused(
            f"{update.field} for {tool} has fields its result does not: "
            + ", ".join(sorted(given - expected))
        )
    raise Refused(
        f'{update.field} must be text or an MCP tool result ({{"content": [...]}}), '
        f"not {json.dumps(value)[:80]}"
    )


def _mcp_result(outcome: ToolOutcome, value: dict[str, Any]) -> ToolOutcome:
    from tether.mcp.content import tool_result
    from tether.mcp.wire import Malformed, call_result

    try:
        result = call_result(value)
    except Malformed as e:
        raise Refused(f"not an MCP tool result: {e.where}: {e.problem}") from None
    read = tool_result(result, MAX_RESULT_CHARS)
    return copied(outcome, content=read.text, images=read.images, is_error=read.is_error)
