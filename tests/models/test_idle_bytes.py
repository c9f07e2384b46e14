"""The idle timeout is seconds without a byte, wherever the bytes are: response headers that
arrive slowly (a proxy dripping them) keep the attempt alive as body bytes do. A notice says
"pings only" only when keep-alives went on arriving, not for one ping before a silence.
Played on both wires by a minimal HTTP server on 127.0.0.1 that sends exactly the bytes given."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from tether.models.base import Waiting
from tether.models.idle import IdleLimits
from tether.testing import Reply, reply, text
from tether.testing.anthropic_wire import stream_events as anthropic_events
from tether.testing.openai_wire import stream_events as openai_events

from .raw_http import loopback, read_request
from .streams import ask, run
from .test_hostile_bodies import model_for

DRIP_S = 0.02
USAGE = {
    "input_tokens": 3,
    "output_tokens": 2,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}


def _body(wire: str) -> bytes:
    return _long_body(wire, reply(text("dripped through")))


def _long_body(wire: str, answer: Reply) -> bytes:
    if wire == "anthropic":
        events = anthropic_events(
            answer, message_id="m", model="claude-x", usage=USAGE, tool_ids=[], stop_sequence=None
        )
    else:
        events = openai_events(
            answer,
            completion_id="c",
            model="gpt-x",
            created=0,
            usage=USAGE,
            tool_ids=[],
            include_usage=True,
        )
    return b"".join(events)


@asynccontextmanager
async def dripping_headers(
    body: bytes, *, stall_after: int | None = None, drip_s: float = DRIP_S
) -> AsyncIterator[str]:
    """Headers one byte every DRIP_S, then `body` at once (or its first `stall_after` bytes,
    then nothing)."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await read_request(reader)
            head = (
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                f"x-padding: {'p' * 40}\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
            ).encode()
            for i in range(len(head) if drip_s else 0):
                writer.write(head[i : i + 1])
                await writer.drain()
                await asyncio.sleep(drip_s)
            if not drip_s:
                writer.write(head)
            writer.write(body if stall_after is None else body[:stall_after])
            await writer.drain()
            await asyncio.sleep(30 if stall_after is not None else 0)
        except ConnectionError:
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async with loopback(answer) as url:
        yield url


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_headers_dripped_byte_by_byte_do_not_time_out(wire: str) -> None:
    # About 130 bytes of headers at 20 ms: over 2.6 s in all, longer than the idle timeout,
    # while no gap comes near the point where the wait is said (a loaded machine stretches a
    # 20 ms gap to tens of milliseconds: a 0.2 s timeout said "waiting" at 0.06 s).
    idle = IdleLimits(timeout_s=2.0)
    async with dripping_headers(_body(wire)) as url:
        events, error = await run(model_for(wire, url, idle), ask())
    assert error is None, error
    assert not [e for e in events if isinstance(e, Waiting)]


async def test_one_ping_before_a_silence_is_not_pings_only() -> None:
    idle = IdleLimits(timeout_s=0.4)
    body = _body("anthropic")
    after_ping = body.index(b"event: content_block_start")  # message_start, ping, then nothing
    async with dripping_headers(body, stall_after=after_ping, drip_s=0) as url:
        events, error = await run(model_for("anthropic", url, idle), ask())
    assert error is not None
    assert "sent nothing for 0.4s mid-response" in str(error)
    waits = [e for e in events if isinstance(e, Waiting)]
    assert waits
    assert not any(w.pings_only for w in waits)


@asynccontextmanager
async def dripping_body(body: bytes, start: int, count: int, drip_s: float) -> AsyncIterator[str]:
    """Headers at once, `body` up to `start`, then `count` bytes one every `drip_s`, then
    the rest: a slow, steady answer."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await read_request(reader)
            writer.write(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
                + body[:start]
            )
            await writer.drain()
            for i in range(start, start + count):
                writer.write(body[i : i + 1])
                await writer.drain()
                await asyncio.sleep(drip_s)
            writer.write(body[start + count :])
            await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async with loopback(answer) as url:
        yield url


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_slow_steady_body_neither_times_out_nor_says_waiting(wire: str) -> None:
    # 150 bytes of one event (no event ends among them, and fewer than a keep-alive could
    # hold) at 20 ms: 3 s without a whole event, longer than the 2 s idle timeout, while no
    # gap between two bytes comes near the first notice (0.5 s).
    idle = IdleLimits(timeout_s=2.0)
    answer = reply(text("x" * 400))
    body = _long_body(wire, answer)
    start = body.index(b"x" * 10) - 40
    async with dripping_body(body, start, 150, DRIP_S) as url:
        events, error = await run(model_for(wire, url, idle), ask())
    assert error is None, error
    assert not [e for e in events if isinstance(e, Waiting)]
