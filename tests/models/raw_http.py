"""A minimal HTTP server on 127.0.0.1 for tests that need exact bytes on the wire (answers no
real server would send): `loopback` serves a handler, `read_request` consumes one request."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request's head and body (sized by its content-length); the body is returned."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return await reader.readexactly(length)


@asynccontextmanager
async def loopback(answer: Handler) -> AsyncIterator[str]:
    """Serve `answer` for every connection; yields the base URL. Handlers still running at
    the end (a body that takes its time) are cancelled before the server closes."""
    handlers: set[asyncio.Task[None]] = set()

    async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        await answer(reader, writer)

    server = await asyncio.start_server(tracked, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        for handler in handlers:
            handler.cancel()
        await asyncio.gather(*handlers, return_exceptions=True)
        await server.wait_closed()
