"""One connection to one MCP server, held open by an asyncio task of its own.

The SDK's transports and sessions are anyio task groups: they must be entered and exited in
the same task, and a failing transport cancels the task that entered it. So each connection
lives in a task that owns an `AsyncExitStack` for its whole life (opening, serving, closing),
while callers in other tasks await the session's methods. When the transport fails, only the
owner task is hit; callers see the session's "connection closed" error.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack

import anyio

from tether.mcp.client_channel import ChannelSession
from tether.mcp.client_side import ClientSide
from tether.mcp.diagnostics import Diagnostics
from tether.mcp.failures import describe, from_the_server
from tether.mcp.offerings import Listing
from tether.mcp.servers import ClientTransport, HttpTransport, ServerConfig, StdioTransport
from tether.mcp.session import McpSession
from tether.shown_urls import shown_url

CLOSE_GRACE_S = 10.0
"""How long a clean close may take (the SDK ends a stdio server within about 6 s, and an
HTTP session's DELETE could hang) before the connection is cancelled outright."""


class ConnectFailed(Exception):
    """The server could not be reached, did not start, or could not list its tools."""


class ServerConnection:
    """A server's connection. `open()` once; use `client` meanwhile; `close()` when done."""

    def __init__(
        self, config: ServerConfig, startup_timeout_s: float, client: ClientSide | None = None
    ) -> None:
        self.config = config
        self._client_side = client if client is not None else ClientSide()
        self._startup_timeout_s = startup_timeout_s
        self._ready = anyio.Event()
        self._stop = anyio.Event()
        self._scope: anyio.CancelScope | None = None
        self._task: asyncio.Task[None] | None = None
        self._client: McpSession | None = None
        self._listing: Listing | None = None
        self._failure: str | None = None
        self._diagnostics = Diagnostics(config)
        self.ended: str | None = None
        """Why the connection ended by itself (its transport failed), if it did."""

    @property
    def client(self) -> McpSession | None:
        """The connected session; None before `open()` succeeds and once the connection ended."""
        return self._client

    async def open(self) -> Listing:
        """Connect, list what the server offers, and return that; raises `ConnectFailed` with
        the cause (and the end of the server's stderr). Returns or raises within the startup
        timeout; if the caller is cancelled, the half-open connection is abandoned."""
        self._task = asyncio.create_task(self._hold(), name=f"mcp server {self.config.name}")
        try:
            async with asyncio.timeout(self._startup_timeout_s):
                await self._ready.wait()
        except TimeoutError:
            self._abandon()
            raise ConnectFailed(self._with_stderr(self._timeout_message())) from None
        except BaseException:
            self._abandon()
            raise
        if self._listing is None:
            raise ConnectFailed(self._failure or "the connection ended while starting")
        return self._listing

    async def close(self) -> None:
        """End the connection (stdio: the server's process group is gone afterwards) and wait
        for its task. Safe to call more than once, and after a failed `open()`."""
        task = self._task
        if task is None:
            self._diagnostics.close()
            return
        self._stop.set()
        if not self._ready.is_set():
            self._abandon()
        done, _ = await asyncio.wait({task}, timeout=CLOSE_GRACE_S)
        if not done:
            self._abandon()
            await asyncio.wait({task})

    def server_running(self) -> bool | None:
        """Whether its stdio server's process is running; None where that cannot be told."""
        return self._diagnostics.server_running()

    def stderr_tail(self) -> str:
        """The last lines the server wrote to stderr, while the connection is open."""
        return self._diagnostics.stderr_tail()

    async def _hold(self) -> None:
        """The owner task: open, publish, wait for `close()`, then close in this same task."""
        try:
            await self._serve()
        except Exception as exc:  # the transport failed: the server is external, report it
            self.ended = self._with_stderr(describe(exc))
        finally:
            self._client = None
            if not self._ready.is_set():
                self._failure = self._failure or self._with_stderr(self._timeout_message())
                self._ready.set()
            self._diagnostics.close()

    async def _serve(self) -> None:
        deadline = anyio.current_time() + self._startup_timeout_s
        with anyio.CancelScope(deadline=deadline) as scope:
            self._scope = scope
            async with AsyncExitStack() as stack:
                try:
                    client = await self._enter(stack)
                    listing = await client.offerings(self.config.name)
                except Exception as exc:  # reported by open(); the stack closes what did open
                    self._failure = self._with_stderr(self._start_failure(exc))
                    self._ready.set()
                    return
                scope.deadline = math.inf
                self._client = client
                self._listing = listing
                self._ready.set()
                await self._stop.wait()

    async def _enter(self, stack: AsyncExitStack) -> McpSession:
        """Connected and past the handshake. The client's own servers are spoken to by
        tether's own client; the MCP SDK is imported only for the others."""
        transport = self.config.transport
        if isinstance(transport, ClientTransport):
            roots = self._client_side.roots
            return await ChannelSession(self.config.name, transport.exchange, roots).open()
        enter_sdk_session = await _sdk_entry()
        return await enter_sdk_session(self.config, stack, self._diagnostics, self._client_side)

    def _abandon(self) -> None:
        """Stop the owner task where it is: its scope is cancelled, its stack unwinds. A
        server still starting is ended at once (see `Diagnostics.stop_server`): neither a
        timeout nor the end of the session waits on one that never answered."""
        self._stop.set()
        if not self._ready.is_set():
            self._diagnostics.stop_server()
        if self._scope is not None:
            self._scope.cancel()

    def _start_failure(self, exc: Exception) -> str:
        transport = self.config.transport
        if isinstance(transport, StdioTransport) and isinstance(exc, FileNotFoundError):
            if transport.cwd is not None and str(exc.filename) == str(transport.cwd):
                return f"working directory not found: {transport.cwd}"
            return f"command not found: {transport.command}"
        if isinstance(transport, StdioTransport) and isinstance(exc, PermissionError):
            return f"command cannot be run: {transport.command}: {exc.strerror}"
        if isinstance(transport, HttpTransport) and self._diagnostics.http_error is not None:
            return f"{shown_url(transport.url, path=True)} answered {self._diagnostics.http_error}"
        if isinstance(transport, HttpTransport) and not from_the_server(exc):
            return f"cannot reach {shown_url(transport.url, path=True)}: {describe(exc)}"
        return describe(exc)

    def _timeout_message(self) -> str:
        return f"no answer within {self._startup_timeout_s:g} s"

    def _with_stderr(self, message: str) -> str:
        tail = self.stderr_tail()
        return f"{message}; stderr: {tail}" if tail else message


_Enter = Callable[[ServerConfig, AsyncExitStack, Diagnostics, ClientSide], Awaitable[McpSession]]


async def _sdk_entry() -> _Enter:
    """The SDK's way in, imported in a thread of its own: the import takes most of a second,
    which on the event loop would hold the session's first request (servers connecting in
    the background hold nothing). A daemon thread: a session ending meanwhile (`-p` answered
    already) does not wait for the import to finish."""
    loop = asyncio.get_running_loop()
    imported: asyncio.Future[_Enter] = loop.create_future()

    def settle(result: _Enter | None, error: BaseException | None) -> None:
        if imported.done():
            return  # the connection was abandoned meanwhile
        if error is not None:
            imported.set_exception(error)
        else:
            assert result is not None
            imported.set_result(result)

    def run() -> None:
        try:
            from tether.mcp.sdk_session import enter_sdk_session
        except BaseException as e:  # handed to the connecting task, which reports it
            outcome: tuple[_Enter | None, BaseException | None] = (None, e)
        else:
            outcome = (enter_sdk_session, None)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=run, name="mcp sdk import", daemon=True).start()
    return await imported
