"""The OpenAI Chat Completions wire format: stream chunks, whole completions and error bodies.

Thinking is carried as `reasoning_content`, the field OpenAI-compatible servers that expose
reasoning (DeepSeek, vLLM, llama.cpp and others) use.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tether.testing.anthropic_wire import pieces
from tether.testing.script import Reply, TextPart, ThinkingPart, ToolCallPart, WebSearchPart

FINISH_REASONS: dict[str, str] = {
    "end_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}

DONE = b"data: [DONE]\n\n"


def finish_reason(reply: Reply) -> str:
    """The Anthropic-style stop reason of `reply` in OpenAI terms."""
    return FINISH_REASONS.get(reply.final_stop_reason(), "stop")


def data_event(data: Mapping[str, Any]) -> bytes:
    """One server-sent event: OpenAI streams name no event type."""
    return f"data: {json.dumps(data)}\n\n".encode()


def error_body(
    message: str, error_type: str, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """The body of an HTTP error, and of an in-stream error chunk."""
    return {"error": {"message": message, "type": error_type, "param": param, "code": code}}


def error_event(error_type: str, message: str) -> bytes:
    """The in-stream error chunk; the SDK raises `APIError` on it."""
    return data_event(error_body(message, error_type))


def usage_object(usage: Mapping[str, int], cache_details: bool = True) -> dict[str, Any]:
    """Usage in OpenAI terms: prompt tokens include cached ones, which are also given apart
    (`cache_details`; else not named, as llama.cpp's server and older vLLM answer)."""
    prompt = (
        usage["input_tokens"]
        + usage["cache_read_input_tokens"]
        + usage["cache_creation_input_tokens"]
    )
    completion = usage["output_tokens"]
    given: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cache_details:
        given["prompt_tokens_details"] = {"cached_tokens": usage["cache_read_input_tokens"]}
    return given


def whole_completion(
    reply: Reply,
    *,
    completion_id: str,
    model: str,
    created: int,
    usage: Mapping[str, int],
    tool_ids: Sequence[str],
    cache_details: bool = True,
) -> dict[str, Any]:
    """The answer to a non-streaming request."""
    texts = [b.text for b in reply.blocks if isinstance(b, TextPart)]
    thoughts = [b.thinking for b in reply.blocks if isinstance(b, ThinkingPart)]
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(texts) if texts else None,
        "refusal": None,
    }
    if thoughts:
        message["reasoning_content"] = "".join(thoughts)
    calls = reply.tool_calls()
    if calls:
        message["tool_calls"] = [
            {
                "id": tool_id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call, tool_id in zip(calls, tool_ids, strict=True)
        ]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish_reason(reply),
            }
        ],
        "usage": usage_object(usage, cache_details),
    }


def stream_events(
    reply: Reply,
    *,
    completion_id: str,
    model: str,
    created: int,
    usage: Mapping[str, int],
    tool_ids: Sequence[str],
    include_usage: bool,
    cache_details: bool = True,
) -> list[bytes]:
    """Every SSE event of a streamed answer, `[DONE]` last."""

    def chunk(delta: dict[str, Any] | None, finish: str | None = None) -> bytes:
        data: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": None,
            "choices": []
            if delta is None
            else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if include_usage:
            data["usage"] = usage_object(usage, cache_details) if delta is None else None
        return data_event(data)

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    ids = iter(tool_ids)
    call_index = 0
    for block in reply.blocks:
        match block:
            case TextPart(text=text):
                events.extend(chunk({"content": p}) for p in pieces(text))
            case ThinkingPart(thinking=thought):
                events.extend(chunk({"reasoning_content": p}) for p in pieces(thought))
            case ToolCallPart(name=name, arguments=arguments):
                opening = {
                    "index": call_index,
                    "id": next(ids),
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
                events.append(chunk({"tool_calls": [opening]}))
                events.extend(
                    chunk({"tool_calls": [{"index": call_index, "function": {"arguments": p}}]})
                    for p in pieces(arguments)
                )
                call_index += 1
            case WebSearchPart():
                pass  # refused before any answer: the Messages API's server tool only
    events.append(chunk({}, finish_reason(reply)))
    if include_usage:
        events.append(chunk(None))
    events.append(DONE)
    return events
