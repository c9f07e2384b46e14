"""Micro-compaction: bulky old tool results are sent as a short note saying what was there.

This changes what is sent, never what is stored. The note for a result depends only on the
result and the call that asked for it, and only results older than the recent window are
replaced, so once a result is sent as a note it is sent as the same note in every later
request: the cached prefix of the conversation stays byte-identical.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from tether.protocol import ContentBlock, Message, ToolResultBlock
from tether.slotted import Slotted

# Input fields that name what a tool worked on, most telling first.
_SUBJECT_FIELDS = ("file_path", "notebook_path", "path", "command", "pattern", "url", "query")
_SUBJECT_MAX_CHARS = 120


class CompactionPolicy(Slotted):
    """When and how far the conversation is compacted.

    window: the model's context window in tokens.
    threshold: share of the window that, once reached, triggers a summary, unless
        `trigger_tokens` says where.
    trigger_tokens: the context, in tokens, that triggers a summary (a session's:
        `compact_point`, Claude Code's rule); None: `threshold` of the window.
    target: share of the window the conversation should occupy after a summary.
    keep_recent_exchanges: exchanges (see `cut_point`) kept verbatim by a summary.
    micro_keep_recent: tool results answering the last N assistant turns stay whole.
    micro_min_chars: older tool results at least this long are replaced by a note.
    micro_from: share of the window from which micro-compaction starts: below it the whole
        history is sent, so the cached prefix is never rewritten for nothing.
    """

    __slots__ = (
        "keep_recent_exchanges",
        "micro_from",
        "micro_keep_recent",
        "micro_min_chars",
        "target",
        "threshold",
        "trigger_tokens",
        "window",
    )
    window: Final[int]
    threshold: Final[float]
    target: Final[float]
    keep_recent_exchanges: Final[int]
    micro_keep_recent: Final[int]
    micro_min_chars: Final[int]
    micro_from: Final[float]
    trigger_tokens: Final[int | None]

    def __init__(
        self,
        window: int,
        threshold: float = 0.85,
        target: float = 0.4,
        keep_recent_exchanges: int = 2,
        micro_keep_recent: int = 4,
        micro_min_chars: int = 2000,
        micro_from: float = 0.5,
        trigger_tokens: int | None = None,
    ) -> None:
        self.window = window
        self.threshold = threshold
        self.target = target
        self.keep_recent_exchanges = keep_recent_exchanges
        self.micro_keep_recent = micro_keep_recent
        self.micro_min_chars = micro_min_chars
        self.micro_from = micro_from
        self.trigger_tokens = trigger_tokens

    def compact_at(self) -> int:
        """The context, in tokens, at which a summary is made."""
        if self.trigger_tokens is not None:
            return self.trigger_tokens
        return math.ceil(self.threshold * self.window)


ToolCalls = Mapping[str, tuple[str, dict[str, Any]]]


def micro_compact(
    messages: Sequence[Message],
    policy: CompactionPolicy,
    *,
    tool_names: ToolCalls | None = None,
    memo: dict[int, tuple[Message, Message]] | None = None,
) -> tuple[Message, ...]:
    """The messages to send: tool results of at least `policy.micro_min_chars` characters that
    answer calls older than the recent assistant turns become a note. At least the last
    `policy.micro_keep_recent` turns are recent; the boundary advances in steps of that many
    turns so the sent prefix changes (and is cached anew) only every few turns.

    `tool_names` maps a tool_use id to (tool name, input) for calls no longer in `messages`;
    calls still present are looked up in the messages themselves. Pairing is untouched: each
    replaced result keeps its tool_use_id and is_error. Same input, same output.

    `memo`, kept by the caller across requests, returns the very same note message for a
    message seen before: identical objects let the wire-format cache skip them, so the cost
    per request stays flat as the conversation grows.
    """
    calls: dict[str, tuple[str, dict[str, Any]]] | None = None
    boundary = _recent_boundary(messages, policy.micro_keep_recent)
    out: list[Message] = []
    for index, message in enumerate(messages):
        if index >= boundary or message.role != "user" or not _has_bulky_result(message, policy):
            out.append(message)
            continue
        known = memo.get(id(message)) if memo is not None else None
        if known is not None and known[0] is message:
            out.append(known[1])
            continue
        if calls is None:  # built only when a note is to be written
            calls = dict(tool_names or {})
            for earlier in messages:
                for use in earlier.tool_uses():
                    calls[use.id] = (use.name, use.input)
        content = tuple(
            _maybe_note(block, calls, policy.micro_min_chars) for block in message.content
        )
        noted = Message(role="user", content=content)
        if memo is not None:
            memo[id(message)] = (message, noted)
        out.append(noted)
    return tuple(out)


def _has_bulky_result(message: Message, policy: CompactionPolicy) -> bool:
    return any(
        isinstance(b, ToolResultBlock) and _bulky(b, policy.micro_min_chars)
        for b in message.content
    )


def _bulky(block: ToolResultBlock, min_chars: int) -> bool:
    """Long text, or images (each worth far more than its note)."""
    return len(block.content) >= min_chars or bool(block.images)


def result_note(name: str, tool_input: Mapping[str, Any], content: str) -> str:
    """The note that stands for a tool result: which tool, on what, and how big it was."""
    lines = len(content.splitlines())
    subject = _subject(tool_input)
    what = f"{name} of {subject}" if subject else f"{name} result"
    return (
        f"[{what}, {lines:,} lines / {len(content):,} characters, omitted from context to save "
        f"space; call {name} again if needed]"
    )


def _recent_boundary(messages: Sequence[Message], keep_recent: int) -> int:
    """Index of the oldest assistant turn whose results stay whole (len when none do).

    The boundary moves in steps of `keep_recent` turns, not one turn at a time: each move
    changes the sent prefix from that point on (a cache write), so batching the moves costs
    one cache rewrite every `keep_recent` turns instead of one every turn. Between
    `keep_recent` and `2 * keep_recent - 1` recent turns keep their results whole.
    """
    if keep_recent <= 0:
        return len(messages)
    turns = [index for index, message in enumerate(messages) if message.role == "assistant"]
    compactable = max(0, (len(turns) - keep_recent) // keep_recent * keep_recent)
    return turns[compactable] if compactable < len(turns) else len(messages)


def _maybe_note(block: ContentBlock, calls: ToolCalls, min_chars: int) -> ContentBlock:
    if not isinstance(block, ToolResultBlock) or not _bulky(block, min_chars):
        return block
    name, tool_input = calls.get(block.tool_use_id, ("tool", {}))
    note = result_note(name, tool_input, block.content)
    if block.images:
        note += f" ({len(block.images)} image(s) left out)"
    return block.model_copy(update={"content": note, "images": ()})


def _subject(tool_input: Mapping[str, Any]) -> str:
    for field in _SUBJECT_FIELDS:
        value = tool_input.get(field)
        if isinstance(value, str) and value.strip():
            one_line = " ".join(value.split())
            if len(one_line) > _SUBJECT_MAX_CHARS:
                one_line = one_line[: _SUBJECT_MAX_CHARS - 1] + "…"
            return one_line
    return ""
