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

from tether.protocol import ContentBlock, TextBlock
from tether.store.records import Record, UserRecord

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
    known, ahead of the prompt)."""

    placed: tuple[tuple[int | None, TextBlock], ...]


def hook_attachments(
    blocks: Sequence[ContentBlock],
) -> tuple[list[ContentBlock], list[dict[str, Any]]]:
    """`blocks` without a UserPromptSubmit hook's context, and that context as attachment
    entries' fields (one per kind, its texts in order, each text's index in `blocks`)."""
    kept: list[ContentBlock] = []
    found: dict[str, list[tuple[int, str]]] = {}
    for index, block in enumerate(blocks):
        said = _said(block)
        if said is None:
            kept.append(block)
        else:
            found.setdefault(said[0], []).append((index, said[1]))
    return kept, [
        {
            "attachment": {
                "type": kind,
                "content": [text for _, text in placed],
                "hookName": _EVENT,
                "toolUseID": f"hook-{uuid.uuid4()}",
                "hookEvent": _EVENT,
            },
            "sentAt": [index for index, _ in placed],
        }
        for kind, placed in found.items()
    ]


def attachment_context(fields: dict[str, Any]) -> HookContext | None:
    """What an attachment entry of `hook_attachments` stands for (None: another kind)."""
    attachment = fields.get("attachment")
    if not isinstance(attachment, dict):
        return None
    attachment = cast(dict[str, Any], attachment)
    words = _KINDS.get(attachment.get("type"))  # pyright: ignore[reportArgumentType]
    content = attachment.get("content")
    if words is None or attachment.get("hookEvent") != _EVENT or not isinstance(content, list):
        return None
    texts = [t for t in cast(list[Any], content) if isinstance(t, str)]
    places = fields.get("sentAt")
    if not (
        isinstance(places, list)
        and len(cast(list[Any], places)) == len(texts)
        and all(type(p) is int and p >= 0 for p in cast(list[Any], places))
    ):
        places = [None] * len(texts)
    return HookContext(
        tuple(
            (place, TextBlock(text=f"{_OPEN}{words}{text}{_CLOSE}"))
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
    record before it stands as its own."""
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
            if held is None:
                yield place, UserRecord(put_back((), [record]))
            else:
                contexts.append(record)
            continue
        yield from flush()
        held = None
        if isinstance(record, UserRecord):
            held = (place, record)
        else:
            yield place, record
    yield from flush()


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
