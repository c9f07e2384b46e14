"""Answers that are not the API's: a web server's or proxy's HTML page at a wrong URL (an error
status or 200), a whole JSON body instead of a stream. One line each, naming the endpoint; the
page is never dumped. Played by a minimal HTTP server on 127.0.0.1 that sends exactly the
answer given."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from tether.models.anthropic import AnthropicModel
from tether.models.openai_compat import OpenAICompatModel
from tether.testing import FakeModelServer

from .raw_http import loopback, read_request
from .streams import ask, run

GATEWAY_PAGE = (
    "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n"
    + "<center><h1>502 Bad Gateway</h1></center>\n" * 40
    + "<hr><center>nginx</center>\n</body>\n</html>\n"
)


@asynccontextmanager
async def answering(status: int, content_type: str, body: str) -> AsyncIterator[str]:
    """A server that answers every request with `status`, `content_type` and `body`."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        payload = body.encode()
        writer.write(
            f"HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\n".encode()
            + f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n".encode()
            + payload
        )
        await writer.drain()
        writer.close()
        await writer.wait_closed()

    async with loopback(answer) as url:
        yield url


def model_for(wire: str, url: str) -> AnthropicModel | OpenAICompatModel:
    if wire == "anthropic":
        return AnthropicModel(model="claude-x", api_key="k", base_url=url)
    return OpenAICompatModel(model="gpt-x", api_key="k", base_url=url)


@pytest.mark.parametrize(("wire", "provider"), [("anthropic", "anthropic"), ("openai", "openai")])
@pytest.mark.parametrize("content_type", ["text/html", "application/octet-stream"])
async def test_an_html_error_page_is_named_by_its_title(
    wire: str, provider: str, content_type: str
) -> None:
    async with answering(502, content_type, GATEWAY_PAGE) as url:
        _, error = await run(model_for(wire, url), ask())
    assert error is not None
    assert (str(error), error.status, error.retryable) == (
        f'{provider} had a server error (HTTP 502) at {url}: an HTML page titled "502 Bad Gateway"',
        502,
        True,
    )


async def test_an_html_page_without_a_title_and_a_404() -> None:
    async with answering(404, "text/html; charset=utf-8", "<html><body>nope</body></html>") as url:
        _, error = await run(model_for("openai", url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"openai rejected the request (HTTP 404) at {url}: an HTML page",
        False,
    )


async def test_a_page_answered_with_200_is_not_a_stream() -> None:
    async with answering(
        200, "text/html", GATEWAY_PAGE.replace("502 Bad Gateway", "Welcome")
    ) as url:
        _, error = await run(model_for("anthropic", url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f'anthropic answered with an HTML page titled "Welcome" at {url}, not an event stream; '
        "check the base URL",
        False,
    )


WHOLE_REPLIES = {
    "anthropic": '{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", '
    '"content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", '
    '"usage": {"input_tokens": 5, "output_tokens": 1}}',
    "openai": '{"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": '
    '{"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]}',
}


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
async def test_a_whole_json_answer_is_said_to_be_not_streamed(wire: str) -> None:
    # Anthropic's whole message was "reported message mid-response" (its type taken for an
    # error's); OpenAI's was only "answered with application/json".
    async with answering(200, "application/json", WHOLE_REPLIES[wire]) as url:
        _, error = await run(model_for(wire, url), ask())
    assert error is not None
    assert (str(error), error.retryable) == (
        f"{wire} at {url} answered without streaming (one JSON reply, not an event stream): "
        "tether needs an endpoint that streams (`stream: true`); check the base URL, or the "
        "server's streaming support",
        False,
    )


async def test_other_json_answered_with_200_is_not_a_stream() -> None:
    async with answering(200, "application/json", '{"status": "ok"}') as url:
        _, error = await run(model_for("openai", url), ask())
    assert error is not None
    assert str(error) == (
        f"openai answered with application/json at {url}, not an event stream; check the base URL"
    )


async def test_a_long_plain_error_body_is_cut_to_one_line() -> None:
    async with answering(500, "text/plain", "upstream failed\n" * 200) as url:
        _, error = await run(model_for("anthropic", url), ask())
    assert error is not None
    message = str(error)
    assert "\n" not in message
    assert message.startswith(f"anthropic had a server error (HTTP 500) at {url}: upstream failed")
    assert len(message) < 500


async def test_tls_to_a_plain_http_server_names_the_handshake(
    fake_model: FakeModelServer,
) -> None:
    url = fake_model.url.replace("http://", "https://")
    _, error = await run(model_for("anthropic", url), ask())
    assert error is not None
    assert str(error).startswith(f"cannot reach {url}: TLS handshake failed (")
    assert (error.retryable, error.unreachable) == (True, True)
    assert fake_model.requests == []
