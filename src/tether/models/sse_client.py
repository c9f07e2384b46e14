"""`SseClient`: one streamed POST to a model endpoint over HTTP, its server-sent events out.

Both wires share it: the HTTP/1.1 client (connections kept alive between requests),
the failures turned into one-line `ModelError`s through `Endpoint`, and the idle watch. It
never retries: `tether.core.model_call` is the one retry layer, for every retryable failure.

The exchange runs in a task of its own that puts what arrives into a queue, so that waiting
for the next event can time out (a notice, then the idle timeout) without cancelling a read
half-way (how long the endpoint has been quiet is `silence.py`). The SSE parser is httpx's own.

Whatever the endpoint sends, memory and time stay bounded: one event (or one line still
unfinished) is at most `MAX_EVENT_BYTES`, an answer's body `MAX_BODY_BYTES` decompressed (httpx
decompresses in pieces of 1 MiB, so a small compressed body cannot inflate at once), and
keep-alives (`ping` events) are no sign of an answer: an attempt that gets nothing else for the
idle timeout is given up like a silent one, after the same "waiting for the model" notices.
Past a bound, or when the body cannot be decoded (a corrupt gzip encoding), the attempt fails
like a broken stream: one line, retried by the loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import cast

import httpx2
from httpx2 import ServerSentEvent

from tether.models.base import Answered, Waiting
from tether.models.endpoint import (
    CONNECT_TIMEOUT_S,
    Endpoint,
    body_detail,
    is_whole_reply,
    retry_after_s,
    transport_detail,
)
from tether.models.heard_bytes import HEARING, hear_every_byte
from tether.models.idle import IdleLimits
from tether.models.preload import needs_tls, no_trust_context, tls_context
from tether.models.silence import Silence, WatchedStream
from tether.protocol import ModelError

_MAX_ERROR_BODY_BYTES = 64 * 1024
_WRITE_TIMEOUT_S = 60.0

MAX_EVENT_BYTES = 16 * 1024 * 1024
"""One server-sent event: far above any real one (a whole tool call in one chunk, as some
OpenAI-compatible servers send it, included)."""
MAX_BODY_BYTES = 64 * 1024 * 1024
"""One answer's body, decompressed: the longest answer a model gives (thinking and 128k output
tokens, one an event of about 150 bytes) takes about 30 MiB. Blank lines and comments count:
a small download that inflates to nothing but newlines ends here too."""
_KEEPALIVE_EVENTS = frozenset({"ping"})
"""Events that say the connection lives, not that the answer moves on."""


# Markers told apart by their class alone: plain classes, as a dataclass each would cost
# start-up its generated methods for nothing.
class _End:
    """The body ended cleanly."""

    __slots__ = ()


_REQUEST_ID_HEADERS = ("request-id", "x-request-id")
"""Where the Messages API and OpenAI-compatible servers give the id of a request."""


_Item = ServerSentEvent | Exception | _End | Answered


class SseClient:
    """POSTs a JSON body and yields the answer's server-sent events (and `Waiting` notices)."""

    def __init__(self, endpoint: Endpoint, headers: Mapping[str, str], idle: IdleLimits) -> None:
        self.endpoint = endpoint
        self.idle = idle
        self._client = httpx2.AsyncClient(
            headers=dict(headers),
            # Reads are bounded by the idle watch below, not by the transport.
            timeout=httpx2.Timeout(
                None, connect=CONNECT_TIMEOUT_S, write=_WRITE_TIMEOUT_S, pool=None
            ),
            # Proxies from the environment (HTTPS_PROXY, NO_PROXY), as the SDKs did.
            trust_env=True,
            # The default context for that environment, built once (and ahead: `preload`);
            # none read for an endpoint that cannot speak TLS.
            verify=tls_context()
            if needs_tls(endpoint.base_url, os.environ)
            else no_trust_context(),
        )
        hear_every_byte(self._client)

    async def aclose(self) -> None:
        """Close the kept-alive connections."""
        await self._client.aclose()

    async def events(
        self, url: str, content: bytes
    ) -> AsyncGenerator[ServerSentEvent | Waiting | Answered, None]:
        """The events of one streamed answer to `content` POSTed at `url`, after an `Answered`
        once the endpoint answered with a stream.

        Raises `ModelError` for every failure: no connection, an error status, a body that is
        not an event stream, a connection broken mid-stream, or an idle timeout.
        """
        queue: asyncio.Queue[_Item] = asyncio.Queue()
        watch = Silence()
        exchange = asyncio.create_task(self._exchange(url, content, queue, watch))
        started = False
        try:
            while True:
                item = await self._next(queue, watch, started)
                if isinstance(item, Waiting):
                    yield item
                elif isinstance(item, Answered):
                    started = True
                    yield item
                elif isinstance(item, _End):
                    return
                elif isinstance(item, Exception):
                    raise item
                else:
                    yield item
        finally:
            exchange.cancel()
            # Waited for, not awaited: its cancellation is not this task's to raise.
            await asyncio.wait({exchange})

    async def _next(
        self,
        queue: asyncio.Queue[_Item],
        watch: Silence,
        started: bool,
    ) -> _Item | Waiting:
        """The next item, or a `Waiting` notice when one falls due first; a `ModelError`
        once nothing has arrived for the idle timeout."""
        loop = asyncio.get_running_loop()
        # The common case mid-stream: no timer needed. Not once the answer stood still for
        # the first notice: a consumer slower than keep-alives always finds one queued.
        still = loop.time() - watch.quiet_since
        if not queue.empty() and still < self.idle.first_notice_s:
            return queue.get_nowait()
        while True:
            silent = loop.time() - watch.quiet_since
            # At least one notice comes before the attempt is given up, however late this
            # task got to run: the user is told what is being waited for.
            if silent >= self.idle.timeout_s and watch.notices:
                if watch.kept_alive:
                    return self.endpoint.kept_alive_only(self.idle.timeout_s)
                return self.endpoint.stalled(self.idle.timeout_s, started=started)
            notice_at = self.idle.notice_after(watch.notices)
            if silent >= notice_at:
                watch.notices += 1
                if watch.notices <= watch.told:
                    continue  # a wait as long was said in this answer: not once per gap
                watch.told = watch.notices
                return Waiting(
                    kind="waiting",
                    waited_s=silent,
                    limit_s=self.idle.timeout_s,
                    pings_only=watch.kept_alive,
                )
            wait = min(notice_at, self.idle.timeout_s) - silent
            try:
                # Not `wait_for`: on Python 3.11 it returns the item when a cancellation lands
                # just as the item arrives, and the user's stop is lost (the item itself stays
                # queued when the timeout or a cancellation ends this wait).
                async with asyncio.timeout(wait):
                    return await queue.get()
            except TimeoutError:
                continue

    async def _exchange(
        self,
        url: str,
        content: bytes,
        queue: asyncio.Queue[_Item],
        watch: Silence,
    ) -> None:
        """Send the request and put what comes back on `queue`, ending with `_End` or an error."""
        HEARING.set(watch.heard)  # this task's own context: the bytes it reads are this answer's
        try:
            await self._exchange_or_raise(url, content, queue, watch)
        except Exception as err:  # a failure not mapped below still reaches the caller
            queue.put_nowait(err)

    async def _exchange_or_raise(
        self, url: str, content: bytes, queue: asyncio.Queue[_Item], watch: Silence
    ) -> None:
        client = self._client
        request = client.build_request(
            "POST", url, content=content, headers={"content-type": "application/json"}
        )
        try:
            response = await client.send(request, stream=True)
        except httpx2.TransportError as err:
            queue.put_nowait(self.endpoint.unreachable(transport_detail(err)))
            return
        watch.progressed()
        if isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = WatchedStream(response.stream, watch)
        try:
            failure = await self._refusal(response)
            if failure is not None:
                queue.put_nowait(failure)
                return
            queue.put_nowait(Answered(_request_id(response)))
            watch.answering = True
            watch.progressed()
            measured = cast(httpx2.Response, _Measured(response))
            async for event in httpx2.EventSource(measured, max_event_size=MAX_EVENT_BYTES):
                watch.saw_event(keepalive=event.event in _KEEPALIVE_EVENTS)
                queue.put_nowait(event)
            queue.put_nowait(_End())
        except _TooLong:
            detail = f"its body passed {_mib(MAX_BODY_BYTES)} decompressed"
            queue.put_nowait(self.endpoint.stream_unreadable(detail))
        except httpx2.SSEError as err:
            queue.put_nowait(self.endpoint.stream_unreadable(_sse_detail(err)))
        except httpx2.DecodingError as err:
            queue.put_nowait(self.endpoint.stream_unreadable(_decoding_detail(response, err)))
        except httpx2.TransportError as err:
            queue.put_nowait(self.endpoint.stream_broken(transport_detail(err)))
        except httpx2.HTTPError as err:  # any other failure of the HTTP layer: one line too
            queue.put_nowait(self.endpoint.stream_broken(transport_detail(err)))
        finally:
            await response.aclose()

    async def _refusal(self, response: httpx2.Response) -> ModelError | None:
        """The error an answer stands for (an error status, a page instead of a stream), or
        None for an event stream."""
        content_type = response.headers.get("content-type", "")
        is_stream = content_type.partition(";")[0].strip().lower() == "text/event-stream"
        if response.status_code == 200 and is_stream:
            return None
        status = response.status_code
        if 300 <= status < 400:
            return self.endpoint.redirected(status, response.headers.get("location"))
        try:
            body = await _read_some(response, _MAX_ERROR_BODY_BYTES)
        except httpx2.DecodingError as err:
            if status < 400:  # what the body said is unknown: try again, as for a cut stream
                return self.endpoint.stream_unreadable(_decoding_detail(response, err))
            body = None
        detail, error_type = body_detail(content_type, body or b"")
        if body is None:
            detail = f"a body that could not be decoded ({_encoding(response)})"
        if response.status_code >= 400:
            error = self.endpoint.http_error(
                response.status_code, detail, retry_after_s=retry_after_s(response.headers)
            )
            error.error_type = error_type
            should_retry = response.headers.get("x-should-retry")
            if should_retry in ("true", "false"):
                error.retryable = should_retry == "true"
            return error
        if body is not None and is_whole_reply(body):  # the answer, not streamed
            return self.endpoint.not_streamed()
        if error_type is not None:  # {"error": ...} with a 200 status, as some servers send
            return self.endpoint.stream_error(error_type, detail)
        if detail.startswith("an HTML page"):
            return self.endpoint.not_a_stream(detail)
        return self.endpoint.not_a_stream(content_type or "a body of no content type")


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB"


def _sse_detail(err: httpx2.SSEError) -> str:
    if "byte limit" in str(err):
        return f"one event (or line) passed {_mib(MAX_EVENT_BYTES)}"
    return transport_detail(err)


def _encoding(response: httpx2.Response) -> str:
    return response.headers.get("content-encoding", "no encoding named")


def _decoding_detail(response: httpx2.Response, err: httpx2.DecodingError) -> str:
    return f"its body could not be decoded ({_encoding(response)}: {transport_detail(err)})"


async def _read_some(response: httpx2.Response, limit: int) -> bytes:
    """Up to `limit` bytes of the body: enough for any error message, never a whole download."""
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        parts.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(parts)[:limit]


class _TooLong(Exception):
    """The body passed `MAX_BODY_BYTES`."""


class _Measured:
    """What httpx2's `EventSource` reads of a response (its headers, its request, its text),
    with the text counted as it is decompressed and decoded."""

    def __init__(self, response: httpx2.Response) -> None:
        self._response = response
        self.headers = response.headers
        self.request = response.request
        self.size = 0

    async def aiter_text(self) -> AsyncIterator[str]:
        async for text in self._response.aiter_text():
            self.size += len(text)
            if self.size > MAX_BODY_BYTES:
                raise _TooLong
            yield text


def _request_id(response: httpx2.Response) -> str | None:
    for name in _REQUEST_ID_HEADERS:
        value = response.headers.get(name)
        if value:
            return value
    return None
