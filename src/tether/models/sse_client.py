"""`SseClient`: one streamed POST to a model endpoint over HTTP, its server-sent events out.

Both wires share it: the HTTP/1.1 client (connections kept alive between requests),
the failures turned into one-line `ModelError`s through `Endpoint`, and the idle watch. It
never retries: `tether.core.model_call` is the one retry layer, for every retryable failure.

The exchange runs in a task of its own that puts what arrives into a queue, so that waiting
for the next event can time out (a notice, then the idle timeout) without cancelling a read
half-way. The SSE parser is httpx's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass

import httpx2
from httpx2 import ServerSentEvent

from tether.models.base import Waiting
from tether.models.endpoint import (
    CONNECT_TIMEOUT_S,
    Endpoint,
    body_detail,
    retry_after_s,
    transport_detail,
)
from tether.models.idle import IdleLimits
from tether.models.preload import tls_context
from tether.protocol import ModelError

_MAX_ERROR_BODY_BYTES = 64 * 1024
_WRITE_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class _End:
    """The body ended cleanly."""


@dataclass(frozen=True)
class _Started:
    """The answer's headers arrived with status 200 and an event stream."""


_Item = ServerSentEvent | Exception | _End | _Started


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
            # The default context for that environment, built once (and ahead: `preload`).
            verify=tls_context(),
        )

    async def aclose(self) -> None:
        """Close the kept-alive connections."""
        await self._client.aclose()

    async def events(
        self, url: str, content: bytes
    ) -> AsyncGenerator[ServerSentEvent | Waiting, None]:
        """The events of one streamed answer to `content` POSTed at `url`.

        Raises `ModelError` for every failure: no connection, an error status, a body that is
        not an event stream, a connection broken mid-stream, or an idle timeout.
        """
        queue: asyncio.Queue[_Item] = asyncio.Queue()
        watch = _Silence()
        exchange = asyncio.create_task(self._exchange(url, content, queue, watch))
        started = False
        try:
            while True:
                item = await self._next(queue, watch, started)
                if isinstance(item, Waiting):
                    yield item
                elif isinstance(item, _Started):
                    started = True
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
        watch: _Silence,
        started: bool,
    ) -> _Item | Waiting:
        """The next item, or a `Waiting` notice when one falls due first; a `ModelError`
        once nothing has arrived for the idle timeout."""
        if not queue.empty():  # the common case mid-stream: no timer needed
            return queue.get_nowait()
        loop = asyncio.get_running_loop()
        while True:
            silent = loop.time() - watch.last_byte_at
            # At least one notice comes before the attempt is given up, however late this
            # task got to run: the user is told what is being waited for.
            if silent >= self.idle.timeout_s and watch.notices:
                return self.endpoint.stalled(self.idle.timeout_s, started=started)
            notice_at = self.idle.notice_after(watch.notices)
            if silent >= notice_at:
                watch.notices += 1
                return Waiting(kind="waiting", waited_s=silent, limit_s=self.idle.timeout_s)
            wait = min(notice_at, self.idle.timeout_s) - silent
            try:
                return await asyncio.wait_for(queue.get(), wait)
            except TimeoutError:
                continue

    async def _exchange(
        self,
        url: str,
        content: bytes,
        queue: asyncio.Queue[_Item],
        watch: _Silence,
    ) -> None:
        """Send the request and put what comes back on `queue`, ending with `_End` or an error."""
        try:
            await self._exchange_or_raise(url, content, queue, watch)
        except Exception as err:  # a failure not mapped below still reaches the caller
            queue.put_nowait(err)

    async def _exchange_or_raise(
        self, url: str, content: bytes, queue: asyncio.Queue[_Item], watch: _Silence
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
        watch.saw_bytes()
        if isinstance(response.stream, httpx2.AsyncByteStream):
            response.stream = _Watched(response.stream, watch)
        try:
            failure = await self._refusal(response)
            if failure is not None:
                queue.put_nowait(failure)
                return
            queue.put_nowait(_Started())
            async for event in httpx2.EventSource(response, max_event_size=None):
                queue.put_nowait(event)
            queue.put_nowait(_End())
        except httpx2.TransportError as err:  # SSEError included
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
        body = await _read_some(response, _MAX_ERROR_BODY_BYTES)
        detail, error_type = body_detail(content_type, body)
        if response.status_code >= 400:
            error = self.endpoint.http_error(
                response.status_code, detail, retry_after_s=retry_after_s(response.headers)
            )
            should_retry = response.headers.get("x-should-retry")
            if should_retry in ("true", "false"):
                error.retryable = should_retry == "true"
            return error
        if error_type is not None:  # {"error": ...} with a 200 status, as some servers send
            return self.endpoint.stream_error(error_type, detail)
        if detail.startswith("an HTML page"):
            return self.endpoint.not_a_stream(detail)
        return self.endpoint.not_a_stream(content_type or "a body of no content type")


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


class _Silence:
    """When the last byte arrived, and how many notices were given since."""

    def __init__(self) -> None:
        self.last_byte_at = asyncio.get_running_loop().time()
        self.notices = 0

    def saw_bytes(self) -> None:
        self.last_byte_at = asyncio.get_running_loop().time()
        self.notices = 0


class _Watched(httpx2.AsyncByteStream):
    """The response's byte stream, noting each arrival: silence is measured in bytes, not
    in whole events."""

    def __init__(self, stream: httpx2.AsyncByteStream, watch: _Silence) -> None:
        self._stream = stream
        self._watch = watch

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            self._watch.saw_bytes()
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()
