"""Usage counts that cannot be token counts (a text, a negative number, more tokens than any
window, thousands of digits): the reply is kept, the count is not used, and the adapter names
it once in its life (`ResponseDone.unread_usage`), which the session says as one warning."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tether.models.anthropic import AnthropicModel
from tether.models.openai_compat import OpenAICompatModel
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import run_cli

from .raw_http import loopback, read_request
from .streams import ask, finish

LONG = "9" * 5000
"""More digits than Python reads as a number."""


def _anthropic_body(count: str) -> str:
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "m1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "x",
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": "USAGE"},
        {"type": "message_stop"},
    ]
    usage = '{"output_tokens": ' + count + "}"
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e).replace(chr(34) + 'USAGE' + chr(34), usage)}\n\n"
        for e in events
    )


def _openai_body(count: str) -> str:
    chunks = [
        '{"id": "c1", "choices": [{"index": 0, "delta": {"content": "hi"}}]}',
        '{"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}',
        '{"id": "c1", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": '
        + count
        + "}}",
        "[DONE]",
    ]
    return "".join(f"data: {c}\n\n" for c in chunks)


@asynccontextmanager
async def streaming(body: str) -> AsyncIterator[str]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        payload = body.encode()
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            + f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n".encode()
            + payload
        )
        await writer.drain()
        writer.close()
        await writer.wait_closed()

    async with loopback(answer) as url:
        yield url


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("count", "shown"),
    [
        ('"many"', '"many"'),
        ("-5", "-5"),
        ("1e30", "1e+30"),
        (str(10**30), str(10**30)),
        (LONG, "(a number of 5,000 digits)"),
    ],
)
async def test_an_unreadable_usage_count_is_named_once(wire: str, count: str, shown: str) -> None:
    name = "output_tokens" if wire == "anthropic" else "completion_tokens"
    body = _anthropic_body(count) if wire == "anthropic" else _openai_body(count)
    async with streaming(body) as url:
        model = (
            AnthropicModel(model="claude-x", api_key="k", base_url=url)
            if wire == "anthropic"
            else OpenAICompatModel(model="gpt-x", api_key="k", base_url=url)
        )
        first = await finish(model, ask())
        second = await finish(model, ask())
    assert first.message.content[0].text == "hi"  # type: ignore[union-attr]
    assert first.unread_usage == (f"{name}={shown}",)
    assert second.unread_usage == ()  # named once
    assert first.usage.output_tokens in (0, 1)  # the count before it, or none: never it


def test_a_session_says_an_unreadable_usage_count_in_one_warning(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="echo hi"), usage={"output_tokens": "many"}),  # type: ignore[dict-item]
        reply(text("done"), usage={"output_tokens": -3}),
    )
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p", "go"]
    ran = run_cli(argv)
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr
    assert ran.stderr == (
        "tether: warning: the endpoint sent usage counts that are not token counts "
        '(output_tokens="many"): they are not counted, so this session\'s token counts and '
        "cost are too low\n"
    )
