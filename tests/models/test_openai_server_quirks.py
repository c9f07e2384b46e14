"""Chat Completions streams as other servers send them (Ollama, vLLM, OpenRouter, llama.cpp),
played by a minimal SSE server on 127.0.0.1 that sends exactly the chunks given."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from tether.models.base import ResponseDone
from tether.models.openai_compat import OpenAICompatModel
from tether.protocol import Message, TextBlock, ThinkingBlock, ToolUseBlock, Usage

from .raw_http import loopback, read_request
from .streams import TOOLS, ask, finish


@asynccontextmanager
async def sse_server(chunks: list[dict[str, Any]], *, done: bool = True) -> AsyncIterator[str]:
    """Answer every request with `chunks` as SSE `data:` events, then `[DONE]`."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        events = [f"data: {json.dumps(c)}\n\n" for c in chunks]
        if done:
            events.append("data: [DONE]\n\n")
        body = "".join(events).encode()
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            + f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()
        await writer.wait_closed()

    async with loopback(answer) as url:
        yield url + "/v1"


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": choices,
        **extra,
    }


async def response_for(chunks: list[dict[str, Any]]) -> ResponseDone:
    async with sse_server(chunks) as url:
        model = OpenAICompatModel(model="m", api_key=None, base_url=url)
        return await finish(model, ask(tools=TOOLS))


async def test_whole_tool_call_in_one_delta_without_index_and_stop_finish() -> None:
    # Ollama: each call arrives complete, without an index, and the response ends with "stop".
    done = await response_for(
        [
            chunk({"role": "assistant", "content": ""}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "id": "call_x",
                            "function": {"name": "Bash", "arguments": '{"command": "ls"}'},
                        }
                    ]
                }
            ),
            chunk(
                {
                    "tool_calls": [
                        {"id": "call_y", "function": {"name": "Read", "arguments": '{"path": "a"}'}}
                    ]
                }
            ),
            chunk({}, "stop"),
        ]
    )
    assert (done.stop_reason, done.message.tool_uses()) == (
        "tool_use",
        [
            ToolUseBlock(id="call_x", name="Bash", input={"command": "ls"}),
            ToolUseBlock(id="call_y", name="Read", input={"path": "a"}),
        ],
    )


async def test_call_without_id_gets_a_unique_one_and_fragments_join() -> None:
    done = await response_for(
        [
            chunk({"tool_calls": [{"index": 0, "function": {"name": "Bash", "arguments": ""}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"comm'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'and": "pwd"}'}}]}),
            chunk({}, "tool_calls"),
        ]
    )
    [call] = done.message.tool_uses()
    assert (call.name, call.input, call.input_error) == ("Bash", {"command": "pwd"}, None)
    assert call.id.startswith("call_")


async def test_reasoning_field_and_usage_with_cache() -> None:
    # OpenRouter and newer vLLM name the field `reasoning`; usage counts cached prompt tokens.
    done = await response_for(
        [
            chunk({"reasoning": "Think "}),
            chunk({"reasoning": "first."}),
            chunk({"content": "Answer."}),
            chunk({}, "stop"),
            chunk(
                None,
                usage={
                    "prompt_tokens": 1000,
                    "completion_tokens": 20,
                    "total_tokens": 1020,
                    "prompt_tokens_details": {"cached_tokens": 800},
                },
            ),
        ]
    )
    assert done == ResponseDone(
        kind="done",
        message=Message(
            role="assistant",
            content=(ThinkingBlock(thinking="Think first."), TextBlock(text="Answer.")),
        ),
        stop_reason="end_turn",
        usage=Usage(input_tokens=200, output_tokens=20, cache_read_input_tokens=800),
        message_id="c1",  # the chunks' id; this server gave the request none
    )


async def test_content_filter_is_a_refusal() -> None:
    done = await response_for([chunk({"content": "I can't"}), chunk({}, "content_filter")])
    assert (done.stop_reason, done.message.text()) == ("refusal", "I can't")


async def test_choices_without_index_and_null_final_delta() -> None:
    done = await response_for(
        [
            {"id": "c1", "choices": [{"delta": {"content": "Hi "}, "finish_reason": None}]},
            {"id": "c1", "choices": [{"delta": {"content": "there."}}]},
            {"id": "c1", "choices": [{"delta": None, "finish_reason": "stop"}]},
        ]
    )
    assert (done.stop_reason, done.message.text(), done.usage) == ("end_turn", "Hi there.", Usage())
