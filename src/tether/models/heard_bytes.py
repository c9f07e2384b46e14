"""Bytes heard as they arrive on a model endpoint's connection: the idle timeout counts
seconds without a byte, and httpx2 hands a response's headers over only once whole (a proxy
dripping them would otherwise look silent)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterable
from typing import Any

import httpcore2
import httpx2

HEARING: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "tether_sse_hearing", default=None
)
"""Told of each read that brought bytes, for the answer the current task is reading (set by
`SseClient` in the task that sends the request and reads the answer)."""


def hear_every_byte(client: httpx2.AsyncClient) -> None:
    """Every connection the client opens (directly or through a proxy from the environment)
    reads through `_HeardStream`: the idle watch hears bytes as they arrive, headers
    included, which httpx2 only hands over once whole. httpx2 has no setting for the network
    backend of the pools it builds, so it is set on them here."""
    transports: Iterable[object] = [client._transport, *client._mounts.values()]  # pyright: ignore[reportPrivateUsage]
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore2.AsyncNetworkBackend):
            setattr(pool, "_network_backend", _HeardBackend(backend))  # noqa: B010


class _HeardBackend(httpcore2.AsyncNetworkBackend):
    def __init__(self, backend: httpcore2.AsyncNetworkBackend) -> None:
        self._backend = backend

    async def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore2.AsyncNetworkStream:
        return _HeardStream(await self._backend.connect_tcp(*args, **kwargs))

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore2.AsyncNetworkStream:
        return _HeardStream(await self._backend.connect_unix_socket(*args, **kwargs))

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


class _HeardStream(httpcore2.AsyncNetworkStream):
    def __init__(self, stream: httpcore2.AsyncNetworkStream) -> None:
        self._stream = stream

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        data = await self._stream.read(max_bytes, timeout)
        if data and (heard := HEARING.get()) is not None:
            heard()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        await self._stream.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(self, *args: Any, **kwargs: Any) -> httpcore2.AsyncNetworkStream:
        return _HeardStream(await self._stream.start_tls(*args, **kwargs))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)
