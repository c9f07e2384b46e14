"""Content blocks and usage as the stream-json lines carry them: the Messages API's shapes,
without tether's own fields."""

from __future__ import annotations

from typing import Any

from tether.protocol import Message, TextBlock, ToolResultBlock, Usage


def block_json(block: Any) -> dict[str, Any]:
    """A block as the Messages API shapes it (no tether-internal fields)."""
    if isinstance(block, ToolResultBlock):
        data = block.model_dump(mode="json", exclude={"images"})
        data["content"] = block.api_content()  # images follow the text, as Claude Code sends
        return data
    return block.model_dump(mode="json", exclude={"input_error", "raw_input", "input_refused"})


def only_reminders(message: Message) -> bool:
    """Whether a user message is only reminders (Claude Code's meta message)."""
    return all(
        isinstance(b, TextBlock) and b.text.startswith("<system-reminder>") for b in message.content
    )


def usage_figures(usage: Usage) -> tuple[int, int, int, int]:
    """Input, output, cache read and cache creation tokens."""
    return (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_input_tokens,
        usage.cache_creation_input_tokens,
    )
