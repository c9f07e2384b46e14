"""Content blocks as the stream-json lines carry them: the Messages API's shapes,
without tether's own fields."""

from __future__ import annotations

from typing import Any

from tether.core.cut_replies import Cut, note_text
from tether.protocol import Message, TextBlock, ToolResultBlock


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


def synthetic(line: dict[str, Any], cut: Cut, refused_id: str | None) -> dict[str, Any]:
    """The user line of a note that sends the model on after a reply it could not finish, as
    Claude Code writes it: its words without the reminder's tags, marked synthetic."""
    line["message"]["content"] = [{"type": "text", "text": note_text(cut)}]
    line["isSynthetic"] = True
    if cut == "refusal":
        line["refused_message_id"] = refused_id
        line["refusal_retry"] = True
    return line
