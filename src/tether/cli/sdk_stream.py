"""Partial messages (`--include-partial-messages`): the Messages API's stream events, rebuilt
from what a session streams (text, thinking and tool input as they arrive) and the reply it
completes.

The order and shapes of the events are the API's. A tool call's input goes out fragment by
fragment as the endpoint sent it; one that was not streamed (an endpoint that sends calls
whole) comes at the end of the reply, as one `input_json_delta`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tether.protocol import MessageCompleted, ToolUseBlock, Usage

StreamEvent = dict[str, Any]

_DELTAS = {
    "text": ("text", "text_delta", "text"),
    "thinking": ("thinking", "thinking_delta", "thinking"),
}
"""Per streamed kind: the block's type, the delta's type and the delta's text field."""


@dataclass
class PartialMessage:
    """One reply being streamed: which block is open, how many were opened."""

    message_id: str
    model: str = ""
    _started: bool = False
    _open: str | None = None
    _index: int = -1
    _streamed_calls: set[str] = field(default_factory=set[str])

    def delta(self, kind: str, text: str) -> list[StreamEvent]:
        """A piece of text or thinking: the events it adds (the message's and the block's
        start when they are new)."""
        block_type, delta_type, text_field = _DELTAS[kind]
        events = self._begin()
        if self._open != block_type:
            start: dict[str, Any] = {"type": block_type, text_field: ""}
            if block_type == "thinking":
                start["signature"] = ""
            events.extend(self._open_block(block_type, start))
        events.append(
            {
                "type": "content_block_delta",
                "index": self._index,
                "delta": {"type": delta_type, text_field: text},
            }
        )
        return events

    def tool_input(self, call_id: str, name: str, partial_json: str | None) -> list[StreamEvent]:
        """A tool call's block opening (`partial_json` None) or a fragment of its input."""
        events = self._begin()
        if self._open != call_id:
            self._streamed_calls.add(call_id)
            block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
            events.extend(self._open_block(call_id, block))
        if partial_json is not None:
            events.append(_input_delta(self._index, partial_json))
        return events

    def signature(self, signature: str) -> list[StreamEvent]:
        """A thinking block's signature as it closes (its `signature_delta`, as the API sends
        it after the thinking): nothing when no thinking block is open or it has none."""
        if self._open != "thinking" or not signature:
            return []
        delta = {"type": "signature_delta", "signature": signature}
        return [{"type": "content_block_delta", "index": self._index, "delta": delta}]

    def block_done(self) -> list[StreamEvent]:
        """The open block closed (its `content_block_stop`), as it ends before the reply."""
        return self._close()

    def finish(self, completed: MessageCompleted) -> list[StreamEvent]:
        """The rest of the reply once it is complete: open blocks closed, its tool calls,
        then the message's end with its stop reason and usage."""
        usage = completed.usage or Usage()
        events: list[StreamEvent] = []
        if not self._started:
            self._started = True
            events.append(self._message_start(usage))
        events.extend(self._close())
        for block in completed.message.content:
            if isinstance(block, ToolUseBlock) and block.id not in self._streamed_calls:
                start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
                events.extend(self._open_block(block.id, start))
                events.append(_input_delta(self._index, json.dumps(block.input)))
                events.extend(self._close())
        events.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": completed.stop_reason, "stop_sequence": None},
                "usage": usage.model_dump(),
            }
        )
        events.append({"type": "message_stop"})
        return events

    @property
    def started(self) -> bool:
        """Whether its `message_start` went out."""
        return self._started

    def start(self, usage: Usage) -> list[StreamEvent]:
        """The message's start, with the usage known then (when nothing of it went out yet)."""
        if self._started:
            return []
        self._started = True
        return [self._message_start(usage)]

    def _begin(self) -> list[StreamEvent]:
        """The message's start, when nothing of it went out yet."""
        return self.start(Usage())

    def _open_block(self, key: str, block: dict[str, Any]) -> list[StreamEvent]:
        """The open block closed, and `block` opened after it (`key`: its kind, or a tool
        call's id)."""
        events = self._close()
        self._index += 1
        self._open = key
        events.append({"type": "content_block_start", "index": self._index, "content_block": block})
        return events

    def _message_start(self, usage: Usage) -> StreamEvent:
        return {
            "type": "message_start",
            "message": {
                "id": self.message_id,
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage.model_dump(),
            },
        }

    def _close(self) -> list[StreamEvent]:
        if self._open is None:
            return []
        self._open = None
        return [{"type": "content_block_stop", "index": self._index}]


def _input_delta(index: int, partial_json: str) -> StreamEvent:
    return {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": "input_json_delta", "partial_json": partial_json},
    }
