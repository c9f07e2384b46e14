"""Converting tether's Anthropic-shaped history to Chat Completions messages."""

from __future__ import annotations

import json
from typing import Any

from tether.models.base import ModelRequest
from tether.models.wire_cache import ConvertedMessages
from tether.protocol import (
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    UrlImageSource,
)
from tether.protocol.tool_names import offered_name

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
                "name": offered_name(t.name),
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
    results = [b for b in message.content if isinstance(b, ToolResultBlock)]
    converted: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": b.tool_use_id, "content": _result_text(b)} for b in results
    ]
    if any(isinstance(b, ImageBlock) for b in message.content) or any(b.images for b in results):
        converted.append({"role": "user", "content": _parts_with_images(message, results)})
    elif text or not converted:
        converted.append({"role": "user", "content": text})
    return converted


def _parts_with_images(message: Message, results: list[ToolResultBlock]) -> list[dict[str, Any]]:
    """A user message's text and images as content parts (images as `image_url`, base64 ones
    as data URLs). A `tool` message takes text only, so the images a tool returned follow in
    this user message, said whose they are."""
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock) and block.text:
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append(image_part(block))
    for result in results:
        if result.images:
            said = f"(the image(s) the tool call {result.tool_use_id} returned)"
            parts.append({"type": "text", "text": said})
            parts.extend(image_part(image) for image in result.images)
    return parts


def image_part(image: ImageBlock) -> dict[str, Any]:
    """An image as a Chat Completions content part."""
    source = image.source
    if isinstance(source, UrlImageSource):
        return {"type": "image_url", "image_url": {"url": source.url}}
    url = f"data:{source.media_type};base64,{source.data}"
    return {"type": "image_url", "image_url": {"url": url}}


def _tool_call(block: ToolUseBlock) -> dict[str, Any]:
    arguments = (
        block.raw_input
        if block.input_error is not None and block.raw_input is not None
        else json.dumps(block.input)
    )
    return {
        "id": block.id,
        "type": "function",
        "function": {"name": offered_name(block.name), "arguments": arguments},
    }


def _result_text(block: ToolResultBlock) -> str:
    if block.is_error and not block.content.lower().startswith("error"):
        return ERROR_PREFIX + block.content
    if not block.content and block.images:
        return "(the result is the image(s) in the next message)"
    return block.content
