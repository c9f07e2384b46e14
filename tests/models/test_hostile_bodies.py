"""Answers built to hurt: a compressed body that cannot be decompressed, one endless line that
inflates from a small download, more events than any answer has, nothing but keep-alives,
event data nested past what a parser takes, a redirect. Memory and time stay bounded, and each
is a one-line `ModelError`: retried like a broken stream where the next attempt may work.
Played on both wires by a minimal HTTP server on 127.0.0.1 that sends exactly the bytes given."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import subprocess
import sys
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from tether.models import sse_client
from tether.models.anthropic import AnthropicModel
from tether.models.base import ResponseDone
from tether.models.catalogue import MODELS, cost_usd
from tether.models.idle import IdleLimits
from tether.models.openai_compat import OpenAICompatModel

from .raw_http import loopback, read_request
from .streams import ask, run

WIRES = ["anthropic", "openai"]
SSE = "text/event-stream"

Body = Callable[[asyncio.StreamWriter], object]


@asynccontextmanager
async def answering(status: int, headers: dict[str, str], body: bytes | Body) -> AsyncIterator[str]:
    """A server that answers every request with `status`, `headers` and `body` (bytes, or a
    coroutine function that writes the body itself and may take its time)."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await answer_on(reader, writer)
        except ConnectionError:
            pass  # the client gave up: what these tests are about
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def answer_on(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        lines = [f"HTTP/1.1 {status} X", *(f"{k}: {v}" for k, v in headers.items())]
        if isinstance(body, bytes):
            lines.append(f"content-length: {len(body)}")
        lines.append("connection: close")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        if isinstance(body, bytes):
            writer.write(body)
        else:
            await body(writer)  # type: ignore[misc]
        await writer.drain()

    async with loopback(answer) as url:
        yield url


def model_for(
    wire: str, url: str, idle: IdleLimits | None = None
) -> AnthropicModel | OpenAICompatModel:
    if wire == "anthropic":
        return AnthropicModel(model="claude-x", api_key="k", base_url=url, idle=idle)
    return OpenAICompatModel(model="gpt-x", api_key="k", base_url=url, idle=idle)


GARBAGE_GZIP = b"\x1f\x8b\x08\x00garbagegarbage" * 10


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("content_type", [SSE, "application/json"])
async def test_a_corrupt_gzip_body_is_a_retryable_broken_answer(
    wire: str, content_type: str
) -> None:
    headers = {"content-type": content_type, "content-encoding": "gzip"}
    async with answering(200, headers, GARBAGE_GZIP) as url:
        _, error = await run(model_for(wire, url), ask())
    assert error is not None
    message = str(error)
    assert message.startswith(
        f"the response from {url} could not be read: its body could not be decoded (gzip: "
    ), message
    assert error.retryable
    assert "\n" not in message


async def test_a_corrupt_gzip_error_page_keeps_its_status() -> None:
    headers = {"content-type": "text/html", "content-encoding": "gzip"}
    async with answering(502, headers, GARBAGE_GZIP) as url:
        _, error = await run(model_for("anthropic", url), ask())
    assert error is not None
    assert (str(error), error.status, error.retryable) == (
        f"anthropic had a server error (HTTP 502) at {url}: a body that could not be decoded "
        "(gzip)",
        502,
        True,
    )


def _gzip_stream(prefix: bytes, size: int) -> bytes:
    """`prefix` then `size` bytes of 'a', gzip-compressed (about a thousandth the size)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(prefix)]
    piece = b"a" * (1 << 20)
    for _ in range(size >> 20):
        parts.append(packer.compress(piece))
    parts.append(packer.flush())
    return b"".join(parts)


@pytest.mark.parametrize("wire", WIRES)
async def test_one_endless_line_is_cut_off_at_the_event_limit(wire: str) -> None:
    body = _gzip_stream(b"data: ", 64 << 20)
    headers = {"content-type": SSE, "content-encoding": "gzip"}
    async with answering(200, headers, body) as url:
        _, error = await run(model_for(wire, url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"the response from {url} could not be read: one event (or line) passed 16 MiB",
        True,
    )


BOMB_CHILD = """
import asyncio, resource, sys
from tether.models.anthropic import AnthropicModel
from tether.models.base import ResponseDone
from tether.models.catalogue import MODELS, cost_usd
from tether.models.base import ModelRequest
from tether.protocol import Message, ModelError

async def main():
    model = AnthropicModel(model="claude-x", api_key="k", base_url=sys.argv[1])
    request = ModelRequest(model="x", system="s", messages=(Message.user_text("hi"),))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        async for _ in model.stream(request):
            pass
    except ModelError as e:
        print(e)
    finally:
        await model.aclose()
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(grew // 1024)

asyncio.run(main())
"""


async def test_a_gigabyte_line_in_a_megabyte_download_takes_bounded_memory() -> None:
    body = _gzip_stream(b"data: ", 1 << 30)
    assert len(body) < 2 << 20
    headers = {"content-type": SSE, "content-encoding": "gzip"}
    async with answering(200, headers, body) as url:
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", BOMB_CHILD, url, stdout=subprocess.PIPE
        )
        out, _ = await child.communicate()
    message, grew_mib = out.decode().splitlines()
    assert message.endswith("could not be read: one event (or line) passed 16 MiB")
    assert int(grew_mib) < 200  # the line is 1 GiB: it was never held


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    "body",
    [b'event: content_block_delta\ndata: {"type": "ping"}\n\n' * 10_000, b"\n" * 1_000_000],
    ids=["events", "blank lines"],
)
async def test_a_body_bigger_than_any_answer_ends_the_attempt(
    wire: str, body: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound is on the decompressed body, blank lines and comments included: a small
    download that inflates to nothing but newlines is stopped too. (The bound is made small
    here: the real one takes seconds of parsing to reach.)"""
    monkeypatch.setattr(sse_client, "MAX_BODY_BYTES", 64 * 1024)
    headers = {"content-type": SSE, "content-encoding": "gzip"}
    async with answering(200, headers, gzip.compress(body)) as url:
        _, error = await run(model_for(wire, url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"the response from {url} could not be read: its body passed 0 MiB decompressed",
        True,
    )


async def _pings_forever(writer: asyncio.StreamWriter) -> None:
    start = {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 1}}}
    writer.write(f"event: message_start\ndata: {json.dumps(start)}\n\n".encode())
    for _ in range(400):  # 20 s at most: long past the limit, short of hanging the suite
        writer.write(b'event: ping\ndata: {"type": "ping"}\n\n')
        await writer.drain()
        await asyncio.sleep(0.05)


async def test_keep_alives_alone_hit_the_idle_limit_and_are_said() -> None:
    idle = IdleLimits(timeout_s=0.3)
    async with answering(200, {"content-type": SSE}, _pings_forever) as url:
        events, error = await run(model_for("anthropic", url, idle), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"{url} sent only keep-alive pings for 0.3s (idle timeout; "
        "TETHER_MODEL_IDLE_TIMEOUT_MS raises it)",
        True,
    )
    # Pings are no answer: the user is told the model is being waited for.
    assert events
    assert {e.kind for e in events} == {"started", "waiting"}


@pytest.mark.parametrize("wire", WIRES)
async def test_event_data_nested_past_the_parser_is_a_broken_stream(wire: str) -> None:
    deep = b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n"
    async with answering(200, {"content-type": SSE}, deep) as url:
        _, error = await run(model_for(wire, url), ask())
    assert error is not None
    noun = "an event" if wire == "anthropic" else "a chunk"
    assert (str(error), error.retryable) == (
        f"the connection to {url} broke mid-response: {noun} that is not JSON: {'[' * 80!r}",
        True,
    )


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_a_redirect_is_named_with_where_it_points(wire: str, status: int) -> None:
    async with answering(status, {"location": "http://elsewhere.invalid/v1/x"}, b"") as url:
        _, error = await run(model_for(wire, url), ask())
    assert error is not None
    assert (str(error), error.status, error.retryable) == (
        f"{wire} answered with a redirect (HTTP {status}) to http://elsewhere.invalid/v1/x at "
        f"{url}; tether does not follow redirects: check the base URL",
        status,
        False,
    )


def _sse(*events: tuple[str, dict[str, object]]) -> bytes:
    return b"".join(f"event: {k}\ndata: {json.dumps(d)}\n\n".encode() for k, d in events)


_START = {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 1}}}
_DELTA = {"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "x"}}
OUT_OF_ORDER = {
    "anthropic": (
        _sse(("message_start", _START), ("content_block_delta", _DELTA))
        + _sse(("message_stop", {"type": "message_stop"})),
        "a delta for content block 3, never started",
    ),
    "openai": (
        b'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": '
        b'{"arguments": "{}"}}]}, "finish_reason": "tool_calls"}]}\n\ndata: [DONE]\n\n',
        "1 tool call(s) with no name",
    ),
}


OTHER_CHOICE = (
    b'data: {"choices": [{"index": 5, "delta": {"content": "x"}}]}\n\ndata: [DONE]\n\n',
    "only choice 5 came, never the one asked for",
)


@pytest.mark.parametrize("case", ["anthropic", "openai", "openai other choice"])
async def test_events_out_of_order_are_a_broken_stream_not_an_empty_answer(case: str) -> None:
    body, detail = OUT_OF_ORDER.get(case, OTHER_CHOICE)
    wire = case.split()[0]
    async with answering(200, {"content-type": SSE}, body) as url:
        events, error = await run(model_for(wire, url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"the response from {url} broke the streaming protocol: {detail}",
        True,
    )
    assert [e.kind for e in events] in ([], ["started"])  # nothing said, at most its start


async def _comments_forever(writer: asyncio.StreamWriter) -> None:
    for _ in range(400):  # 8 s at most: long past the limit, short of hanging the suite
        writer.write(b": OPENROUTER PROCESSING\n\n")
        await writer.drain()
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_sse_comments_alone_are_keep_alives_however_many(wire: str) -> None:
    """Comments the parser drops (OpenRouter's `: OPENROUTER PROCESSING`) are keep-alives:
    their bytes add up past any one event's size, and still they are no answer."""
    idle = IdleLimits(timeout_s=0.6)
    async with answering(200, {"content-type": SSE}, _comments_forever) as url:
        events, error = await run(model_for(wire, url, idle), ask())
    assert error is not None
    assert str(error).startswith(f"{url} sent only keep-alive pings for 0.6s"), str(error)
    assert events
    assert all(e.kind == "waiting" and e.pings_only for e in events)  # type: ignore[union-attr]


def _stream_with_usage(wire: str, count: str) -> bytes:
    """A whole streamed answer "ok" whose usage holds `count` (JSON digits) as a token count."""
    if wire == "anthropic":
        events = [
            (
                "message_start",
                '{"type":"message_start","message":{"id":"m","type":"message",'
                '"role":"assistant","content":[],"model":"claude-x","stop_reason":null,'
                f'"usage":{{"input_tokens":{count},"output_tokens":1}}}}}}',
            ),
            (
                "content_block_start",
                '{"type":"content_block_start","index":0,'
                '"content_block":{"type":"text","text":""}}',
            ),
            (
                "content_block_delta",
                '{"type":"content_block_delta","index":0,'
                '"delta":{"type":"text_delta","text":"ok"}}',
            ),
            ("content_block_stop", '{"type":"content_block_stop","index":0}'),
            (
                "message_delta",
                '{"type":"message_delta","delta":{"stop_reason":"end_turn"},'
                f'"usage":{{"output_tokens":{count}}}}}',
            ),
            ("message_stop", '{"type":"message_stop"}'),
        ]
        return "".join(f"event: {name}\ndata: {data}\n\n" for name, data in events).encode()
    chunks = [
        '{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"}}]}',
        '{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
        f'{{"id":"c","choices":[],"usage":{{"prompt_tokens":{count},"completion_tokens":2}}}}',
    ]
    return ("".join(f"data: {c}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("digits", [5000, 4000, 17])
async def test_an_absurd_count_is_unknown_and_the_answer_kept(wire: str, digits: int) -> None:
    # Python's json refuses a whole number of more than 4,300 digits (a bare ValueError):
    # the answer was taken for a broken stream, for one count nobody needs to answer. One
    # it reads (4,000 digits) overflowed a float when priced.
    body = _stream_with_usage(wire, "9" * digits)
    async with answering(200, {"content-type": SSE}, body) as url:
        events, error = await run(model_for(wire, url), ask())
    assert error is None, str(error)
    done = events[-1]
    assert isinstance(done, ResponseDone)
    assert done.message.text() == "ok"
    assert done.usage.input_tokens == 0  # unknown
    assert cost_usd(MODELS["claude-sonnet-4-5"], done.usage) < 1
