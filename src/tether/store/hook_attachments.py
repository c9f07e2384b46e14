"""What a UserPromptSubmit hook added to a prompt, kept beside the prompt's entry rather than
inside it, as Claude Code keeps it: an `attachment` entry (`hook_additional_context` for its
JSON `additionalContext`, `hook_success` for what it printed as plain text), so that readers
of the conversation (the SDK's `get_session_messages`) find the user's words alone. A resumed
session puts the text back into the prompt's message where it was sent: tether's entries
name each text's place in the message as sent (`sentAt`), so the request after a resume
starts with the bytes the model saw (the prompt cache's prefix); without it (Claude Code's
entries), ahead of the prompt, where Claude Code sends its attachments."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from tether.protocol import ContentBlock, TextBlock, ToolResultBlock
from tether.store.records import Record, UserRecord
from tether.store.tool_result_context import (
    AFTER_EVENTS,
    CONTEXT,
    STOPPED,
    STOPPING_EVENTS,
    with_context,
)

_EVENT = "UserPromptSubmit"
_OPEN, _CLOSE = "<system-reminder>\n", "\n</system-reminder>"
_KINDS = {
    "hook_additional_context": f"{_EVENT} hook additional context: ",
    "hook_success": f"{_EVENT} hook success: ",
}
"""Each attachment kind, and the words the model reads before the hook's text."""


@dataclass(frozen=True)
class HookContext:
    """An attachment's blocks, each with its place in the message it was sent in (None: not
    known, ahead of the prompt); or, for a tool's result (`tool_use_id`), the texts its
    hook (`hook_name`) added at the end of the result's text, of the attachment `kind`."""

    placed: tuple[tuple[int | None, TextBlock], ...]
    tool_use_id: str | None = None
    hook_name: str = ""
    texts: tuple[str, ...] = ()
    kind: str = CONTEXT


def hook_attachments(
    blocks: Sequence[ContentBlock],
) -> tuple[list[ContentBlock], list[dict[str, Any]]]:
    """`blocks` without UserPromptSubmit hooks' context, and that context as attachment
    entries' fields: one per hook's text, in order, with its index in `blocks`, as Claude Code
    writes one per hook (Claude Code resuming a single attachment of two texts sends each as
    a user message of its own, the prompt after the second)."""
    kept: list[ContentBlock] = []
    found: list[tuple[str, int, str]] = []
    for index, block in enumerate(blocks):
        said = _said(block)
        if said is None:
            kept.append(block)
        else:
            found.append((said[0], index, said[1]))
    return kept, [
        {
            "attachment": {
                "type": kind,
                "content": [text],
                "hookName": _EVENT,
                "toolUseID": f"hook-{uuid.uuid4()}",
                "hookEvent": _EVENT,
            },
            "rendered": [{"content": _reminder(kind, text)}],
            "renderedRole": "system",
            "sentAt": [index],
        }
        for kind, index, text in found
    ]


def attachment_context(fields: dict[str, Any]) -> HookContext | None:
    """What an attachment entry of `hook_attachments` stands for (None: another kind)."""
    attachment = fields.get("attachment")
    if not isinstance(attachment, dict):
        return None
    attachment = cast(dict[str, Any], attachment)
    kind, event, content = (attachment.get(k) for k in ("type", "hookEvent", "content"))
    call_id, name = attachment.get("toolUseID"), attachment.get("hookName")
    message = attachment.get("message")
    if kind == STOPPED and event in STOPPING_EVENTS and isinstance(message, str):
        if not isinstance(call_id, str) or not isinstance(name, str):
            return None
        return HookContext((), call_id, name, (message,), STOPPED)
    if not isinstance(content, list):
        return None
    texts = [t for t in cast(list[Any], content) if isinstance(t, str)]
    if kind == "hook_additional_context" and event in AFTER_EVENTS:
        if not isinstance(call_id, str) or not isinstance(name, str):
            return None
        return HookContext((), call_id, name, tuple(texts))
    if kind not in _KINDS or event != _EVENT:
        return None
    places = fields.get("sentAt")
    if not (
        isinstance(places, list)
        and len(cast(list[Any], places)) == len(texts)
        and all(type(p) is int and p >= 0 for p in cast(list[Any], places))
    ):
        places = [None] * len(texts)
    return HookContext(
        tuple(
            (place, TextBlock(text=_reminder(kind, text)))
            for place, text in zip(cast(list[int | None], places), texts, strict=True)
        )
    )


def put_back(
    blocks: tuple[ContentBlock, ...], contexts: Sequence[HookContext]
) -> tuple[ContentBlock, ...]:
    """A prompt's blocks with the hook contexts its attachments hold back in their places:
    those whose place is known at it (in the order of their places, which rebuilds the
    message as sent), the others ahead of the prompt's first text."""
    placed = sorted(
        (p for c in contexts for p in c.placed if p[0] is not None), key=lambda p: p[0] or 0
    )
    unplaced = [block for c in contexts for place, block in c.placed if place is None]
    merged = list(blocks)
    for context in contexts:
        if context.tool_use_id is not None:
            _into_result(merged, context)
    for place, block in placed:
        merged.insert(min(place or 0, len(merged)), block)
    if unplaced:
        first_text = next(
            (i for i, b in enumerate(merged) if isinstance(b, TextBlock)), len(merged)
        )
        merged[first_text:first_text] = unplaced
    return tuple(merged)


def spliced(records: Iterator[tuple[int, Record | HookContext]]) -> Iterator[tuple[int, Record]]:
    """`records` (placed, as `LoadedSession.placed_records` yields them) with each
    `HookContext` put back into the user record before it (`put_back`); one with no user
    record before it (its prompt withdrawn or lost) left out."""
    held: tuple[int, UserRecord] | None = None
    contexts: list[HookContext] = []

    def flush() -> Iterator[tuple[int, Record]]:
        if held is not None:
            place, record = held
            blocks = put_back(record.blocks, contexts)
            yield place, UserRecord(blocks, record.lines_added, record.lines_removed)
        contexts.clear()

    for place, record in records:
        if isinstance(record, HookContext):
            if held is not None:  # none: its prompt was withdrawn (or lost), and so is it
                contexts.append(record)
            continue
        yield from flush()
        held = None
        if isinstance(record, UserRecord):
            held = (place, record)
        else:
            yield place, record
    yield from flush()


def _into_result(blocks: list[ContentBlock], context: HookContext) -> None:
    """A tool hook's context back at the end of its result's text (its result not in the
    message: left out, as the call it speaks of is not there either)."""
    for index, block in enumerate(blocks):
        if isinstance(block, ToolResultBlock) and block.tool_use_id == context.tool_use_id:
            content = with_context(
                block.content, list(context.texts), context.hook_name, context.kind
            )
            blocks[index] = block.model_copy(update={"content": content})
            return


def _reminder(kind: str, text: str) -> str:
    return f"{_OPEN}{_KINDS[kind]}{text}{_CLOSE}"


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
