"""What a UserPromptSubmit hook added to a prompt, kept beside the prompt's entry rather than
inside it, as Claude Code keeps it: an `attachment` entry (`hook_additional_context` for its
JSON `additionalContext`, `hook_success` for what it printed as plain text), so that readers
of the conversation (the SDK's `get_session_messages`) find the user's words alone. A resumed
session puts the text back into the prompt's message, as it was sent."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, cast

from tether.protocol import ContentBlock, TextBlock

_EVENT = "UserPromptSubmit"
_OPEN, _CLOSE = "<system-reminder>\n", "\n</system-reminder>"
_KINDS = {
    "hook_additional_context": f"{_EVENT} hook additional context: ",
    "hook_success": f"{_EVENT} hook success: ",
}
"""Each attachment kind, and the words the model reads before the hook's text."""


def hook_attachments(
    blocks: Sequence[ContentBlock],
) -> tuple[list[ContentBlock], list[dict[str, Any]]]:
    """`blocks` without a UserPromptSubmit hook's context, and that context as attachments
    (one per kind, its texts in order)."""
    kept: list[ContentBlock] = []
    found: dict[str, list[str]] = {}
    for block in blocks:
        said = _said(block)
        if said is None:
            kept.append(block)
        else:
            found.setdefault(said[0], []).append(said[1])
    attachments = [
        {
            "type": kind,
            "content": texts,
            "hookName": _EVENT,
            "toolUseID": f"hook-{uuid.uuid4()}",
            "hookEvent": _EVENT,
        }
        for kind, texts in found.items()
    ]
    return kept, attachments


def attachment_blocks(attachment: object) -> tuple[TextBlock, ...] | None:
    """The blocks an attachment entry of `hook_attachments` stands for (None: another kind)."""
    if not isinstance(attachment, dict):
        return None
    attachment = cast(dict[str, Any], attachment)
    words = _KINDS.get(attachment.get("type"))  # pyright: ignore[reportArgumentType]
    content = attachment.get("content")
    if words is None or attachment.get("hookEvent") != _EVENT or not isinstance(content, list):
        return None
    texts = [t for t in cast(list[Any], content) if isinstance(t, str)]
    return tuple(TextBlock(text=f"{_OPEN}{words}{text}{_CLOSE}") for text in texts)


def _said(block: ContentBlock) -> tuple[str, str] | None:
    if not isinstance(block, TextBlock):
        return None
    text = block.text
    if not (text.startswith(_OPEN) and text.endswith(_CLOSE)):
        return None
    inner = text[len(_OPEN) : -len(_CLOSE)]
    for kind, words in _KINDS.items():
        if inner.startswith(words):
            return kind, inner[len(words) :]
    return None
