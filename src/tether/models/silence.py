"""How long a model endpoint has been quiet during one streamed answer, as the idle watch
of `SseClient` measures it: in bytes as they arrive (not whole events), with keep-alives
(`ping` events, comments) told apart from an answer that moves on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx2

KEEPALIVE_MAX_BYTES = 256
"""More bytes than this since the last whole event are part of a real event, not a ping."""


class Silence:
    """How long the endpoint has been quiet (and how many notices were given since).

    Two clocks. Silence is counted from the last byte the connection brought, whatever it
    was part of: a slow, steady answer is never silent. But keep-alives that go on arriving
    (`ping` events, or comments the parser drops: `: keep-alive`) are no sign of an answer,
    so while they do, the wait is counted from when the answer last moved on: an event other
    than a keep-alive, or bytes of one too big to be a keep-alive (a long event arriving
    slowly moves the answer on before it is whole)."""

    def __init__(self) -> None:
        now = asyncio.get_running_loop().time()
        self.last_progress_at = now
        self.last_byte_at = now
        self.notices = 0
        self.told = 0
        """The most notices one silence of this answer got: a later silence is said only
        once it lasts longer (a slow, steady answer says it is waited for once, not at every
        pause between its events)."""
        self.keepalives = 0
        """Keep-alives since the answer last moved on."""
        self.answering = False
        """The answer's headers are in: its body's bytes are watched by `WatchedStream`."""
        self._unparsed = 0
        self._tail = b""

    @property
    def quiet_since(self) -> float:
        """When the wait being measured began: the last byte, or while only keep-alives
        arrive, the answer's last move."""
        return self.last_progress_at if self.kept_alive else self.last_byte_at

    def saw_bytes(self, chunk: bytes) -> None:
        """Body bytes arrived (decompressed). Each block of lines they end (an event, or a
        comment the parser drops without an event) counts as a keep-alive until the parser
        says it was an answer's event (`saw_event`): a stream of comments is no more
        progress than a stream of pings. An unfinished block longer than a keep-alive moves
        the answer on by its bytes alone."""
        self._byte()
        data = self._tail + chunk
        end = max(data.rfind(b"\n\n"), data.rfind(b"\r\r"), data.rfind(b"\r\n\r\n"))
        if end >= len(self._tail) - 1:  # a block ended within this chunk
            self.keepalives += 1
            self._unparsed = len(data) - end - 2
        else:
            self._unparsed += len(chunk)
        self._tail = data[-3:]
        if self._unparsed > KEEPALIVE_MAX_BYTES:
            self.progressed()

    @property
    def kept_alive(self) -> bool:
        """Keep-alives went on arriving: a stream of them, not one (the ping an answer starts
        with) before a silence."""
        return self.keepalives > 1

    def heard(self) -> None:
        """Bytes arrived on the connection (headers, or a body still compressed). Before the
        answer's headers are whole, any byte is a sign of life (headers arriving slowly
        through a proxy); after, `saw_bytes` tells what they were."""
        self._byte()
        if not self.answering:
            self.progressed()

    def saw_event(self, *, keepalive: bool) -> None:
        if not keepalive:
            self.progressed()

    def progressed(self) -> None:
        self.last_progress_at = self.last_byte_at = asyncio.get_running_loop().time()
        self.notices = 0
        self.keepalives = 0

    def _byte(self) -> None:
        self.last_byte_at = asyncio.get_running_loop().time()
        if not self.kept_alive:
            self.notices = 0  # the notices counted a silence that has ended


class WatchedStream(httpx2.AsyncByteStream):
    """The response's byte stream, noting each arrival: silence is measured in bytes, not
    in whole events."""

    def __init__(self, stream: httpx2.AsyncByteStream, watch: Silence) -> None:
        self._stream = stream
        self._watch = watch

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            self._watch.saw_bytes(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()
