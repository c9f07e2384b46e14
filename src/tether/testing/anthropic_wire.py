"""The Anthropic Messages API wire format: SSE events, whole messages and error bodies.

Shapes follow what the API sends, so that the real `anthropic` SDK (and its stream
accumulator) parses them as it would a live response.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tether.testing.script import Reply, TextPart, ThinkingPart, ToolCallPart, WebSearchPart
from tether.testing.tokens import estimate_thinking_tokens

# Deltas are cut this long so every block arrives in several events, as from the real API.
CHUNK_CHARS = 20


def pieces(value: str) -> list[str]:
    """`value` cut into delta-sized pieces."""
    return [value[i : i + CHUNK_CHARS] for i in range(0, len(value), CHUNK_CHARS)]


def sse(event_type: str, data: Mapping[str, Any]) -> bytes:
    """One server-sent event as the API frames it: the type is both the event name and a field."""
    return f"event: {event_type}\ndata: {json.dumps(data)}\n\n".encode()


def error_body(error_type: str, message: str, request_id: str | None = None) -> dict[str, Any]:
    """The body of an HTTP error (and the data of an in-stream `error` event)."""
    body: dict[str, Any] = {"type": "error", "error": {"type": error_type, "message": message}}
    if request_id is not None:
        body["request_id"] = request_id
    return body


def error_event(error_type: str, message: str) -> bytes:
    """The in-stream error event; the SDK raises on it."""
    return sse("error", error_body(error_type, message))


def content_blocks(reply: Reply, tool_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The reply's blocks as a whole message carries them."""
    ids = iter(tool_ids)
    blocks: list[dict[str, Any]] = []
    for block in reply.blocks:
        match block:
            case TextPart(text=text):
                blocks.append({"type": "text", "text": text})
            case ThinkingPart(thinking=thought, signature=signature):
                blocks.append({"type": "thinking", "thinking": thought, "signature": signature})
            case ToolCallPart(name=name):
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": next(ids),
                        "name": name,
                        "input": block.parsed_input(),
                    }
                )
            case WebSearchPart():
                blocks.extend(web_search_blocks(block))
    return blocks


def web_search_blocks(search: WebSearchPart) -> list[dict[str, Any]]:
    """The server tool's call and its result, as the API sends them."""
    call = {
        "type": "server_tool_use",
        "id": search.id,
        "name": "web_search",
        "input": {"query": search.query},
    }
    found = [
        {
            "type": "web_search_result",
            "title": title,
            "url": url,
            "encrypted_content": f"enc-{index}",
            "page_age": None,
        }
        for index, (title, url) in enumerate(search.results)
    ]
    result = {"type": "web_search_tool_result", "tool_use_id": search.id, "content": found}
    return [call, result]


def api_usage(usage: Mapping[str, int], reply: Reply) -> dict[str, Any]:
    """The reply's `usage` as the API reports it at its end: the token counts, of the output
    those the model thought with under `output_tokens_details`, and under `server_tool_use`
    the web searches it ran (billed apart), when it ran any."""
    searches = sum(isinstance(block, WebSearchPart) for block in reply.blocks)
    given: dict[str, Any] = {k: v for k, v in usage.items() if k != "thinking_tokens"}
    thinking = usage.get("thinking_tokens", estimate_thinking_tokens(reply))
    given["output_tokens_details"] = {"thinking_tokens": thinking}
    if searches:
        given["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": 0}
    return given


def _start_only(usage: Mapping[str, int]) -> dict[str, Any]:
    """What the API says of a reply's usage at its start only (and in a whole message): the
    cache written split by lifetime (the fake's prompt cache keeps five minutes) and the tier."""
    written = usage["cache_creation_input_tokens"]
    split = {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0}
    return {"cache_creation": split, "service_tier": "standard"}


def whole_message(
    reply: Reply,
    *,
    message_id: str,
    model: str,
    usage: Mapping[str, int],
    tool_ids: Sequence[str],
    stop_sequence: str | None,
) -> dict[str, Any]:
    """The answer to a non-streaming request."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content_blocks(reply, tool_ids),
        "stop_reason": reply.final_stop_reason(),
        "stop_sequence": stop_sequence,
        "usage": {**api_usage(usage, reply), **_start_only(usage)},
    }


def _block_events(
    index: int, block: TextPart | ThinkingPart | ToolCallPart, tool_id: str
) -> list[bytes]:
    """One block's events (a web search is two blocks: `_search_events`)."""

    def delta(payload: dict[str, Any]) -> bytes:
        return sse(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": payload}
        )

    match block:
        case TextPart(text=text):
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [delta({"type": "text_delta", "text": p}) for p in pieces(text)]
        case ThinkingPart(thinking=thought, signature=signature):
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [delta({"type": "thinking_delta", "thinking": p}) for p in pieces(thought)]
            deltas.append(delta({"type": "signature_delta", "signature": signature}))
        case ToolCallPart(name=name, arguments=arguments):
            start = {"type": "tool_use", "id": tool_id, "name": name, "input": {}}
            # The API's first fragment of tool input is empty; accumulators must cope.
            fragments = ["", *pieces(arguments)]
            deltas = [delta({"type": "input_json_delta", "partial_json": p}) for p in fragments]
    return [
        sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        ),
        *deltas,
        sse("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def stream_events(
    reply: Reply,
    *,
    message_id: str,
    model: str,
    usage: Mapping[str, int],
    tool_ids: Sequence[str],
    stop_sequence: str | None,
) -> list[bytes]:
    """Every SSE event of a streamed answer, `message_stop` last."""
    start_usage = {
        "input_tokens": usage["input_tokens"],
        "output_tokens": 1,
        "cache_creation_input_tokens": usage["cache_creation_input_tokens"],
        "cache_read_input_tokens": usage["cache_read_input_tokens"],
        **_start_only(usage),
    }
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events = [
        sse("message_start", {"type": "message_start", "message": message}),
        sse("ping", {"type": "ping"}),
    ]
    ids = iter(tool_ids)
    index = 0
    for block in reply.blocks:
        if isinstance(block, WebSearchPart):
            events.extend(_search_events(index, block))
            index += 2
            continue
        tool_id = next(ids) if isinstance(block, ToolCallPart) else ""
        events.extend(_block_events(index, block, tool_id))
        index += 1
    events.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.final_stop_reason(), "stop_sequence": stop_sequence},
                "usage": api_usage(usage, reply),  # cumulative, as the API reports it
            },
        )
    )
    events.append(sse("message_stop", {"type": "message_stop"}))
    return events


def _search_events(index: int, search: WebSearchPart) -> list[bytes]:
    call, result = web_search_blocks(search)
    arguments = json.dumps(call["input"])
    return [
        sse(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": {**call, "input": {}}},
        ),
        *(
            sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": p},
                },
            )
            for p in pieces(arguments)
        ),
        sse("content_block_stop", {"type": "content_block_stop", "index": index}),
        sse(
            "content_block_start",
            {"type": "content_block_start", "index": index + 1, "content_block": result},
        ),
        sse("content_block_stop", {"type": "content_block_stop", "index": index + 1}),
    ]
