"""Entries as the session file holds them: one JSON line each, blocks and messages in Claude
Code's form, timestamps as it writes them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from tether.protocol import ContentBlock, Message, TextBlock, ToolResultBlock


def encode_entry(entry: dict[str, Any]) -> bytes:
    """One line of a session file."""
    try:
        return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    except UnicodeEncodeError:
        # A lone surrogate (undecodable bytes kept by surrogateescape) has no UTF-8 form. \u
        # escapes keep it exactly, and the file stays valid UTF-8 that any JSON reader accepts.
        return (json.dumps(entry, separators=(",", ":")) + "\n").encode()


def entry_block(block: ContentBlock) -> dict[str, Any]:
    """A block as the session file holds it."""
    data = block.model_dump(mode="json", exclude_none=True)
    if isinstance(block, ToolResultBlock):
        # Claude Code's form: a result's images follow its text in `content`.
        data.pop("images", None)
        data["content"] = block.api_content()
    return data


def prompt_first(blocks: Sequence[ContentBlock]) -> list[ContentBlock]:
    """A prompt's blocks as the session file holds them: reminders sent ahead of the prompt's
    own text (the agent types, as Claude Code's attachments go ahead of it in a request) are
    kept after it, as Claude Code keeps its attachments after the prompt, so that whoever reads
    the file for its first prompt (the SDK's session helpers) finds the prompt."""
    lead = 0
    while lead < len(blocks) and _is_reminder(blocks[lead]):
        lead += 1
    text = next(
        (i for i in range(lead, len(blocks)) if isinstance(blocks[i], TextBlock)),
        None,
    )
    if lead == 0 or text is None:
        return list(blocks)
    return [*blocks[lead : text + 1], *blocks[:lead], *blocks[text + 1 :]]


def _is_reminder(block: ContentBlock) -> bool:
    return isinstance(block, TextBlock) and block.text.startswith("<system-reminder>")


def entry_message(message: Message) -> dict[str, Any]:
    """A message as the session file holds it (a compaction's summary)."""
    return {"role": message.role, "content": [entry_block(b) for b in message.content]}


def entry_time() -> str:
    """An entry's timestamp, as Claude Code writes it (UTC, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
