"""A session file's conversation entries as records: what a resumed session replays (its
messages, compactions, spending, the window the API named). An entry that cannot be read
raises `BadEntry` with why."""

from __future__ import annotations

from typing import Any, cast

from pydantic import ValidationError

from tether.protocol import Message, Usage
from tether.protocol.line_counts import changed_lines
from tether.store.entry_encoding import sent_order
from tether.store.foreign import is_off_conversation, message_content
from tether.store.hook_attachments import HookContext, attachment_context
from tether.store.images import without_bad_images
from tether.store.records import (
    AssistantRecord,
    CompactionRecord,
    EstimateRecord,
    Record,
    SpendRecord,
    UserRecord,
    WindowRecord,
)

_NO_MODEL = frozenset({"", "<synthetic>"})
"""`message.model` values that name no model: Claude Code's own messages (an API error said
as a reply) are `<synthetic>`."""

_LABELLED = ("requestedModel", "version")
"""An assistant entry's keys that say its `message.model` is the model that wrote it: tether
writes `requestedModel` (as Claude Code does) since it names each reply's own model; Claude
Code's entries carry `version` too. Before, tether named the session's first model on every
reply (wrong after a change of model, and nothing in the file says when one happened)."""


class BadEntry(Exception):
    pass


def entry_record(fields: dict[str, Any], dropped: list[str]) -> Record | HookContext | None:
    """The entry's record; what of its content was left out (see `images`) goes to `dropped`."""
    try:
        return _typed_record(fields, dropped)
    except ValidationError as e:
        error = e.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise BadEntry(f"{fields['type']}: {where}: {error['msg']}") from None
    except RecursionError:
        raise BadEntry(f"{fields['type']}: nested too deeply") from None


def _typed_record(fields: dict[str, Any], dropped: list[str]) -> Record | HookContext | None:
    if is_off_conversation(fields):
        return None
    match fields["type"]:
        case "user":
            added, removed = changed_lines(fields.get("toolUseResult"))
            content = _message(fields.get("message"), "user", dropped).content
            moved = fields.get("movedReminders")
            if type(moved) is int:
                content = tuple(sent_order(content, moved))
            return UserRecord(content, added, removed)
        case "assistant":
            raw = fields.get("message")
            message = _message(raw, "assistant", dropped)
            message_id = cast(dict[str, Any], raw).get("id")
            model = cast(dict[str, Any], raw).get("model")
            took, wall = fields.get("durationMs"), fields.get("sessionWallMs")
            return AssistantRecord(
                message,
                _usage(cast(dict[str, Any], raw).get("usage")),
                message_id if isinstance(message_id, str) else None,
                model if isinstance(model, str) and model not in _NO_MODEL else None,
                took if type(took) is int and took > 0 else 0,
                model_trusted=any(key in fields for key in _LABELLED),
                session_wall_ms=wall if type(wall) is int and wall > 0 else 0,
            )
        case "compaction":
            summary, kept = fields.get("summary"), fields.get("kept")
            if not isinstance(summary, list) or type(kept) is not int or kept < 1:
                raise BadEntry("compaction without a summary list and a positive kept")
            return CompactionRecord(tuple(Message.model_validate(m) for m in summary), kept)
        case "spend":
            cost = fields.get("costUSD")
            if not isinstance(cost, int | float) or isinstance(cost, bool) or cost < 0:
                raise BadEntry("spend without a costUSD")
            return SpendRecord(Usage.model_validate(fields.get("usage")), float(cost))
        case "window":
            model, tokens = fields.get("model"), fields.get("tokens")
            if not isinstance(model, str) or type(tokens) is not int or tokens < 1:
                raise BadEntry("window without a model and a positive number of tokens")
            ratio = fields.get("charsPerToken")
            if not isinstance(ratio, int | float) or isinstance(ratio, bool) or ratio <= 0:
                ratio = None  # a window without what its refusal taught (or garbled): still one
            return WindowRecord(model, tokens, None if ratio is None else float(ratio))
        case "estimate":
            model, ratio = fields.get("model"), fields.get("charsPerToken")
            if not isinstance(model, str) or not isinstance(ratio, int | float) or ratio <= 0:
                raise BadEntry("estimate without a model and a positive charsPerToken")
            return EstimateRecord(model, float(ratio))
        case "attachment":
            # A prompt's hook context: back into the prompt's message (`spliced`).
            return attachment_context(fields)
        case "title" | "fork" | "meta" | "system" | "progress":
            return None
        case unknown if "message" in fields:  # a conversation entry whose type was lost
            raise BadEntry(f"an entry of unknown type {unknown!r} with a message")
        case _:  # kinds a newer tether (or another tool) writes: nothing to replay
            return None


def _message(raw: object, role: str, dropped: list[str]) -> Message:
    if not isinstance(raw, dict) or raw.get("role") != role:
        raise BadEntry(f"message is not a {role} message")
    content = message_content(cast(dict[str, Any], raw).get("content"))
    content, reasons = without_bad_images(content, role)
    dropped.extend(reasons)
    return Message.model_validate({"role": role, "content": content})


def _usage(raw: object) -> Usage | None:
    """A reply's usage, None when it is missing or not valid: it only counts the session's
    cost, and the reply it came with is kept."""
    try:
        return None if raw is None else Usage.model_validate(raw)
    except ValidationError:
        return None
