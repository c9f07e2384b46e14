"""Partial messages (`--include-partial-messages`): the Messages API's stream events, rebuilt
from what a session streams (text and thinking as they arrive) and the reply it completes.

The session streams text and thinking, not the raw events, so a tool call's input arrives here
whole, as one `input_json_delta` at the end of the reply; the order and shapes of the events are
the API's.
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
    _events: list[StreamEvent] = field(default_factory=list[StreamEvent])

    def delta(self, kind: str, text: str) -> list[StreamEvent]:
        """A piece of text or thinking: the events it adds (the message's and the block's
        start when they are new)."""
        block_type, delta_type, text_field = _DELTAS[kind]
        events: list[StreamEvent] = []
        if not self._started:
            self._started = True
            events.append(self._message_start(Usage()))
        if self._open != block_type:
            events.extend(self._close())
            self._index += 1
            self._open = block_type
            start: dict[str, Any] = {"type": block_type, text_field: ""}
            if block_type == "thinking":
                start["signature"] = ""
            events.append(
                {"type": "content_block_start", "index": self._index, "content_block": start}
            )
        events.append(
            {
                "type": "content_block_delta",
                "index": self._index,
                "delta": {"type": delta_type, text_field: text},
            }
        )
        return events

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
            if isinstance(block, ToolUseBlock):
                self._index += 1
                events.append(
                    {
                        "type": "content_block_start",
                        "index": self._index,
                        "content_block": {
                            "type": "tool_use",
                            "id": block.id,
                            "name": block.name,
                            "input": {},
                        },
                    }
                )
                events.append(
                    {
                        "type": "content_block_delta",
                        "index": self._index,
                        "delta": {
                            "type": "input_json_delta",
                            "partial_json": json.dumps(block.input),
                        },
                    }
                )
                events.append({"type": "content_block_stop", "index": self._index})
        events.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": completed.stop_reason, "stop_sequence": None},
                "usage": usage.model_dump(),
            }
        )
        events.append({"type": "message_stop"})
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
