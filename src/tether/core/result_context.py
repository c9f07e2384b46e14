"""What hooks said about a batch of calls, placed where Claude Code places it in the message
of results (measured with its CLI against the same fake model): a PostToolUse or
PostToolUseFailure hook's context at the end of its own result's text, after a blank line;
but when a PreToolUse hook (or PostToolBatch) said something too, every hook's context as a
reminder block after the results, each call's in order (PreToolUse's, then PostToolUse's).
The session file keeps a result's own output apart from what hooks added to it
(`store.tool_result_context`)."""

from __future__ import annotations

from collections.abc import Sequence

from tether.core.lifecycle import reminder
from tether.core.tool_calls import CallResult
from tether.protocol import TextBlock, ToolResultBlock


def results_with_context(
    results: Sequence[CallResult], notes: Sequence[str]
) -> list[ToolResultBlock | TextBlock]:
    """The message of `results`, with their hooks' context, then `notes` (tether's own
    reminders: a repeated failure, the open plan) as reminder blocks."""
    folded = not any(result.context for result in results)
    blocks: list[ToolResultBlock | TextBlock] = []
    said: list[str] = []
    for result in results:
        block = result.block
        if folded and result.after:
            added = "".join(f"\n\n{reminder(note)}" for note in result.after)
            block = block.model_copy(update={"content": block.content + added})
        else:
            said.extend((*result.context, *result.after))
        blocks.append(block)
    return [*blocks, *(TextBlock(text=reminder(note)) for note in (*said, *notes))]
