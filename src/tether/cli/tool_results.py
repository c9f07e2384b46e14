"""A tool call's `tool_use_result`: the structured result Claude Code gives SDK clients beside
the text the model reads.

Each tool says what it did as data in Claude Code's shape (`ToolOutput.structured`, carried by
`ToolFinished`); a failed call is `"Error: <text>"`, as in Claude Code; a tool that gives no
structure (a client's own) gets its text.
"""

from __future__ import annotations

from typing import Any

from tether.protocol import ToolFinished, ToolResultBlock


def structured_result(block: ToolResultBlock, finished: ToolFinished | None) -> Any:
    """The `tool_use_result` of one call's result."""
    if block.is_error:
        return f"Error: {block.content.removeprefix('Error: ')}"
    if finished is not None and finished.structured is not None:
        return finished.structured
    return block.content
