"""Converting tether's Anthropic-shaped history to Chat Completions messages."""

from __future__ import annotations

import json
from typing import Any

from tether.models.base import ModelRequest
from tether.models.wire_cache import ConvertedMessages
from tether.protocol import Message, TextBlock, ToolResultBlock, ToolSpec, ToolUseBlock

ERROR_PREFIX = "Error: "


def chat_messages(
    request: ModelRequest, cache: ConvertedMessages[list[dict[str, Any]]] | None = None
) -> list[dict[str, Any]]:
    """The system prompt as the first message, then the history, one or more messages each.
    `cache` keeps the wire form of messages already sent (see `wire_cache`)."""
    converted: list[dict[str, Any]] = []
    if request.system:
        converted.append({"role": "system", "content": request.system})
    per_message = (
        cache.convert_all(request.messages)
        if cache is not None
        else [convert_message(m) for m in request.messages]
    )
    for messages in per_message:
        converted.extend(messages)
    return converted


def chat_tools(tools: tuple[ToolSpec, ...]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in tools
    ]


def convert_message(message: Message) -> list[dict[str, Any]]:
    """A user message becomes its tool results (one `tool` message each, first, as they must
    follow the assistant's calls) then its text; an assistant message becomes one message
    with text and tool calls. Thinking is not sent back: the wire has no place for it."""
    text = "\n\n".join(b.text for b in message.content if isinstance(b, TextBlock) and b.text)
    if message.role == "assistant":
        calls = [_tool_call(b) for b in message.content if isinstance(b, ToolUseBlock)]
        assistant: dict[str, Any] = {
            "role": "assistant",
            "content": text or (None if calls else ""),
        }
        if calls:
            assistant["tool_calls"] = calls
        return [assistant]
    converted: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": b.tool_use_id, "content": _result_text(b)}
        for b in message.content
        if isinstance(b, ToolResultBlock)
    ]
    if text or not converted:
        converted.append({"role": "user", "content": text})
    return converted


def _tool_call(block: ToolUseBlock) -> dict[str, Any]:
    arguments = (
        block.raw_input
        if block.input_error is not None and block.raw_input is not None
        else json.dumps(block.input)
    )
    return {
        "id": block.id,
        "type": "function",
        "function": {"name": block.name, "arguments": arguments},
    }


def _result_text(block: ToolResultBlock) -> str:
    if block.is_error and not block.content.lower().startswith("error"):
        return ERROR_PREFIX + block.content
    return block.content
