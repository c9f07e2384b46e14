"""One configured server over a whole session: its current connection, restarted when it is
found lost, and down when a restart cannot bring it back.

Restart policy: when a request finds the connection gone (the process exited, the HTTP server
hung up), the server is restarted once and the request is tried again. If the restart fails,
or the connection is lost again during that retry, the server is down: later requests are told
so at once, without trying, until `reconnect()` (the `/mcp` command's job).

A request that must not run twice (`tools/call`: a tool may have done its work before the
server died) is never sent again: a connection lost once it was sent is that call's error, and
the server is restarted at once for the next call (down only if that restart fails). So a
server that crashes on one particular call costs that call one restart. A stdio server found
exited before the call was sent is restarted and sent the call, as for any request; an HTTP
server cannot be told apart that way, and keeps the policy of any request.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from tether.mcp.client_side import ClientSide
from tether.mcp.connection import ConnectFailed, ServerConnection
from tether.mcp.failures import connection_lost
from tether.mcp.offerings import Listing
from tether.mcp.servers import ServerConfig
from tether.mcp.session import McpSession

_T = TypeVar("_T")


class ServerDown(Exception):
    """The server cannot be used now; the message says why."""


class CallLost(Exception):
    """The connection was lost while a request not to be sent again was in flight; the
    message says why (the server is restarted for the next request)."""


class SupervisedServer:
    """One configured server: `connect()`, then `run()` requests on it (restarting it once
    when its connection is found lost), `reconnect()` on demand, `close()` at the end."""

    def __init__(
        self, config: ServerConfig, startup_timeout_s: float, client: ClientSide | None = None
    ) -> None:
        self.config = config
        self._client_side = client if client is not None else ClientSide()
        self._startup_timeout_s = startup_timeout_s
        self._connection: ServerConnection | None = None
        self._generation = 0
        """Counts connections, so that concurrent requests that find it lost restart it once."""
        self._lock = asyncio.Lock()
        self.listing: Listing | None = None
        """What it offered when it last connected; None if it never did."""
        self.down: str | None = None
        """Why requests are not tried; None while it is usable."""
        self.connect_s: float | None = None
        self.closed = False

    @property
    def client(self) -> McpSession | None:
        """The live client, if there is one."""
        return self._connection.client if self._connection is not None else None

    async def connect(self) -> None:
        """Connect (again), within the startup timeout. Sets `listing` or `down`."""
        connection = ServerConnection(self.config, self._startup_timeout_s, self._client_side)
        self._connection = connection
        self._generation += 1
        started = time.monotonic()
        try:
            self.listing = await connection.open()
        except ConnectFailed as exc:
            self.down = str(exc)
        except BaseException:
            self.down = "connecting was cancelled"
            raise
        else:
            self.down = None
            self.connect_s = time.monotonic() - started

    async def run(
        self, request: Callable[[McpSession], Awaitable[_T]], *, once: bool = False
    ) -> _T:
        """The request's answer; raises `ServerDown`, or what the request raised. A request
        sent `once` is not sent again when the connection is lost under it: `CallLost`."""
        generation = self._generation
        for attempt in range(2):
            if self.closed:
                raise ServerDown("the MCP connections are closed")
            if self.down is not None:
                raise ServerDown(self.down)
            generation = self._generation
            connection, client = self._connection, self.client
            if connection is not None and client is not None:
                # A server found exited before the request was sent: it never had it.
                sent_to_running = once and connection.server_running() is True
                try:
                    return await request(client)
                except Exception as exc:
                    if not connection_lost(exc):
                        raise
                    if sent_to_running:
                        raise CallLost(await self._lost_under_call(generation)) from exc
            if attempt == 0:
                await self._restart(generation)
        raise ServerDown(await self._give_up(generation))

    async def reconnect(self) -> None:
        async with self._lock:
            await self._close_connection()
            if not self.closed:
                await self.connect()

    async def set_enabled(self, enabled: bool) -> None:
        """Disable (close; requests are refused) or enable (connect again) the server."""
        async with self._lock:
            await self._close_connection()
            self.closed = not enabled
            self.down = None  # off, or connecting anew: no longer down for what happened before
            if enabled:
                await self.connect()

    async def close(self) -> None:
        """Close for good: requests are refused from now on."""
        self.closed = True
        await self._close_connection()

    async def _restart(self, generation: int) -> None:
        async with self._lock:
            if self._generation != generation:
                return  # another request restarted it meanwhile
            await self._close_connection()
            if not self.closed:
                await self.connect()

    async def _lost_under_call(self, generation: int) -> str:
        """Why the connection was lost under a call; the server is restarted for the next."""
        async with self._lock:
            connection = self._connection
            why = "the server exited during the call"
            if connection is not None and connection.ended:
                why = f"{why} ({connection.ended})"
            elif tail := connection.stderr_tail() if connection is not None else "":
                why = f"{why}; stderr: {tail}"
            if self._generation == generation:  # else another request restarted it meanwhile
                await self._close_connection()
                if not self.closed:
                    await self.connect()
            return why

    async def _give_up(self, generation: int) -> str:
        """Mark the server down after its restarted connection was lost too; why."""
        async with self._lock:
            connection = self._connection
            lost = connection.ended if connection is not None else None
            why = f"{lost or 'the server closed the connection'}, again after a restart"
            if self._generation != generation:
                return why  # another request restarted it meanwhile: leave that one be
            tail = connection.stderr_tail() if connection is not None else ""
            self.down = f"{why}; stderr: {tail}" if tail else why
            await self._close_connection()
            return self.down

    async def _close_connection(self) -> None:
        if self._connection is not None:
            await self._connection.close()
