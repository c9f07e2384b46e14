"""A client built on first use: the HTTP library costs tens of milliseconds to import, which
start-up should not pay before it needs a model (the REPL pays it in the background)."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar


class _Closable(Protocol):
    def aclose(self) -> Awaitable[None]: ...


C = TypeVar("C", bound=_Closable)


class LazyClient(Generic[C]):
    """Builds the client once, from any thread; `aclose` drops it (the next use rebuilds)."""

    def __init__(self, build: Callable[[], C]) -> None:
        self._build = build
        self._client: C | None = None
        self._lock = threading.Lock()

    def get(self) -> C:
        with self._lock:
            if self._client is None:
                self._client = self._build()
            return self._client

    async def aclose(self) -> None:
        """Close the HTTP connections; the model can still be used, it reconnects."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            await client.aclose()
