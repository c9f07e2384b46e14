"""Building a Messages API request body from a `ModelRequest`, with prompt-cache breakpoints.

Breakpoints go on the system prompt, the last tool and the newest message; when room is left,
one more goes on the user message before it, where the previous request put its own, so that
prefix is still found however many blocks the last exchange added (a cache read looks back
only 20 blocks from a breakpoint).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from tether.models.base import ModelRequest
from tether.models.effort import anthropic_effort
from tether.models.wire_cache import ConvertedMessages
from tether.protocol import (
    ContentBlock,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from tether.protocol.tool_names import offered_name

ThinkingStyle = Literal["budget", "adaptive", "none"]
"""How a model thinks: with a budget, adaptively, or not at all (Claude 3 before 3.7)."""

MAX_CACHE_BREAKPOINTS = 4
MIN_THINKING_BUDGET = 1_024
"""The smallest `budget_tokens` the Messages API takes."""
_EPHEMERAL = {"type": "ephemeral"}


def build_body(
    request: ModelRequest,
    *,
    model: str,
    thinking: ThinkingStyle = "budget",
    efforts: tuple[str, ...] = (),
    converted: ConvertedMessages[dict[str, Any]] | None = None,
    default_effort: str | None = None,
) -> dict[str, Any]:
    """The keyword arguments of `messages.create` (without `stream`). `efforts`: the effort
    levels the model takes; `default_effort`, its level when none is asked (None: the
    API's). `converted` keeps the wire form of messages already sent, so a long history is
    not converted again each turn."""
    messages = (
        converted.convert_all(request.messages)
        if converted is not None
        else convert_messages(request.messages)
    )
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": messages,
    }
    breakpoints = 0
    if request.system.strip():
        body["system"] = [{"type": "text", "text": request.system, "cache_control": _EPHEMERAL}]
        breakpoints += 1
    if request.tools:
        tools: list[dict[str, Any]] = [
            {
                "name": offered_name(t.name),
                "description": t.description,
                "input_schema": t.input_schema,
            }
            for t in request.tools
        ]
        tools[-1] = {**tools[-1], "cache_control": _EPHEMERAL}
        body["tools"] = tools
        breakpoints += 1
    if request.server_tools:
        body["tools"] = [*body.get("tools", ()), *request.server_tools]
    mark_newest_messages(body["messages"], min(2, MAX_CACHE_BREAKPOINTS - breakpoints))
    thinking_field, effort = thinking_and_effort(
        request.thinking_budget,
        request.max_tokens,
        request.effort,
        efforts,
        thinking,
        default_effort,
    )
    if thinking_field is not None:
        body["thinking"] = thinking_field
    if effort is not None:
        body["output_config"] = {"effort": effort}
    user_id = request.metadata.get("user_id")
    if user_id:
        body["metadata"] = {"user_id": user_id}
    return body


def thinking_and_effort(
    budget: int | None,
    max_tokens: int,
    asked: str | None,
    efforts: tuple[str, ...],
    style: ThinkingStyle,
    default_effort: str | None = None,
) -> tuple[dict[str, Any] | None, str | None]:
    """A request's `thinking` and `output_config.effort` (`tether.models.effort`), each None
    when not sent (`thinking` is `disabled` when turned off: `budget` 0). A budget goes below
    `max_tokens` (the API wants it so: a larger one is the whole reply); a reply too short
    for the API's least budget does not think; a smaller budget asked is raised to that
    least, as Claude Code raises it. A model that cannot think is sent neither."""
    if style == "none":
        return None, None
    if style == "budget" and budget:
        budget = min(max(budget, MIN_THINKING_BUDGET), max_tokens - 1)
        budget = budget if budget >= MIN_THINKING_BUDGET else 0
    thinks, effort = anthropic_effort(asked, efforts, style, budget, default_effort)
    if not thinks:  # said so when the session turned it off, as Claude Code says it
        return ({"type": "disabled"} if budget == 0 else None), effort
    if style == "adaptive":
        return {"type": "adaptive"}, effort
    return {"type": "enabled", "budget_tokens": budget}, effort


def convert_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Wire dicts for the history. Shared, never mutated: callers copy before marking."""
    return [convert_message(m) for m in messages]


def convert_message(message: Message) -> dict[str, Any]:
    """One message as the API wants it: tool results first, no empty text blocks."""
    blocks = message.content
    if message.role == "user" and any(isinstance(b, ToolResultBlock) for b in blocks):
        # The API requires a user message's tool results to come before anything else in it.
        blocks = tuple(b for b in blocks if isinstance(b, ToolResultBlock)) + tuple(
            b for b in blocks if not isinstance(b, ToolResultBlock)
        )
    content = [_convert_block(b) for b in blocks if not _is_blank_text(b)]
    if not content:
        content = [_convert_block(b) for b in blocks]
    return {"role": message.role, "content": content}


def _is_blank_text(block: ContentBlock) -> bool:
    # The API refuses text blocks that are empty or only whitespace.
    return isinstance(block, TextBlock) and not block.text.strip()


def _convert_block(block: ContentBlock) -> dict[str, Any]:
    match block:
        case TextBlock(text=text):
            return {"type": "text", "text": text}
        case ThinkingBlock(thinking=thinking, signature=signature):
            return {"type": "thinking", "thinking": thinking, "signature": signature}
        case RedactedThinkingBlock(data=data):
            return {"type": "redacted_thinking", "data": data}
        case ToolUseBlock(id=call_id, name=name, input=arguments):
            return {
                "type": "tool_use",
                "id": call_id,
                "name": offered_name(name),
                "input": arguments,
            }
        case ToolResultBlock(tool_use_id=call_id, content=text, is_error=is_error):
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
            if is_error:
                # The API refuses an error result with no content.
                result["content"] = text or "(the tool failed without a message)"
                result["is_error"] = True
            else:
                result["content"] = block.api_content()
            return result
        case ImageBlock():
            return block.model_dump(mode="json")


def _may_carry_cache_control(block: dict[str, Any]) -> bool:
    if block["type"] in ("thinking", "redacted_thinking"):
        return False
    return not (block["type"] == "text" and not block["text"].strip())


def mark_newest_messages(messages: list[dict[str, Any]], count: int) -> None:
    """Put a breakpoint on the newest message and, when `count` allows, on the user message
    before it (where the previous request put its own). Marks the last block that may carry
    one; replaces the marked dicts, so the converted originals stay untouched."""
    marked = 0
    for index in range(len(messages) - 1, -1, -1):
        if marked >= count:
            return
        if marked > 0 and messages[index]["role"] != "user":
            continue
        content: list[dict[str, Any]] = messages[index]["content"]
        for position in range(len(content) - 1, -1, -1):
            if _may_carry_cache_control(content[position]):
                new_content = list(content)
                new_content[position] = {**content[position], "cache_control": _EPHEMERAL}
                messages[index] = {**messages[index], "content": new_content}
                marked += 1
                break


def dumps(value: Any) -> bytes:
    """Compact JSON, UTF-8: what is sent."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def encode_body(
    body: dict[str, Any], converted: list[dict[str, Any]], encoded: list[bytes]
) -> bytes:
    """The streaming request's JSON. Messages still as `converted` gave them are sent as
    `encoded` (each message is encoded once in its life); the ones `build_body` marked with a
    cache breakpoint are encoded now. So a long conversation costs a join per request, not a
    walk and an encoding of the whole history."""
    messages: list[dict[str, Any]] = body["messages"]
    parts = [
        done if sent is original else dumps(sent)
        for sent, original, done in zip(messages, converted, encoded, strict=True)
    ]
    head = dumps({**{k: v for k, v in body.items() if k != "messages"}, "stream": True})
    return head[:-1] + b',"messages":[' + b",".join(parts) + b"]}"
