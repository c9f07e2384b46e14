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


def prompt_first(blocks: Sequence[ContentBlock]) -> tuple[list[ContentBlock], int]:
    """A prompt's blocks as the session file holds them, and how many reminders moved:
    reminders sent ahead of the prompt's own text (the agent types, as Claude Code's
    attachments go ahead of it in a request) are kept right after that text, as Claude Code
    keeps its attachments after the prompt, so that whoever reads the file for its first
    prompt (the SDK's session helpers) finds the prompt. `sent_order` undoes it."""
    lead = 0
    while lead < len(blocks) and _is_reminder(blocks[lead]):
        lead += 1
    text = next(
        (i for i in range(lead, len(blocks)) if isinstance(blocks[i], TextBlock)),
        None,
    )
    if lead == 0 or text is None:
        return list(blocks), 0
    return [*blocks[lead : text + 1], *blocks[:lead], *blocks[text + 1 :]], lead


def sent_order(blocks: Sequence[ContentBlock], moved: int) -> list[ContentBlock]:
    """A prompt's blocks as they were sent, from the file's order (`prompt_first`): the
    `moved` reminders after its first text go back ahead of it, so that a resumed session
    sends the bytes the model saw (the prompt cache's prefix)."""
    text = next((i for i, b in enumerate(blocks) if isinstance(b, TextBlock)), None)
    if moved <= 0 or text is None or text + 1 + moved > len(blocks):
        return list(blocks)
    after = text + 1
    return [*blocks[after : after + moved], *blocks[:after], *blocks[after + moved :]]


def _is_reminder(block: ContentBlock) -> bool:
    return isinstance(block, TextBlock) and block.text.startswith("<system-reminder>")


def entry_message(message: Message) -> dict[str, Any]:
    """A message as the session file holds it (a compaction's summary)."""
    return {"role": message.role, "content": [entry_block(b) for b in message.content]}


def entry_time() -> str:
    """An entry's timestamp, as Claude Code writes it (UTC, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
