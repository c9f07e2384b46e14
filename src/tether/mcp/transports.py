"""How tether reaches a configured server with the SDK: a subprocess over stdio (tether's
environment without its credentials, plus the configured one; stderr to a file of ours; its
own process group), streamable HTTP with the configured headers, or the older SSE transport."""

from __future__ import annotations

import logging
import os
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

from mcp.client import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import Implementation, ListRootsResult, Root
from pydantic import FileUrl

from tether import __version__
from tether.mcp.client_channel import channel_transport
from tether.mcp.environment import server_environment
from tether.mcp.servers import ClientTransport, HttpTransport, ServerConfig, StdioTransport

STDERR_TAIL_CHARS = 4096
"""How much of a server's stderr is read back for a failure message."""

CLIENT_INFO = Implementation(name="tether", version=__version__)

# The SDK logs what a server does wrong (a line on stdout that is not JSON-RPC, with its
# traceback). With no handler configured, Python's last-resort handler would print that over
# the terminal's UI; records still reach any handler tether or a user configures.
logging.getLogger("mcp").addHandler(logging.NullHandler())


class Diagnostics:
    """What a connection keeps to explain its failures: a stdio server's stderr (in an unnamed
    temporary file: nothing reaches the terminal, and all of it is there once the process has
    exited, where a pipe could still hold the last lines), and the last HTTP error status an
    HTTP server answered a request with (the SDK reports most as "Server returned an error
    response")."""

    def __init__(self, config: ServerConfig) -> None:
        self.errlog: TextIO | None = None
        if isinstance(config.transport, StdioTransport):
            # Append mode, so that reading it back never moves where the server writes. It
            # lives as long as the connection: close() closes it.
            self.errlog = tempfile.TemporaryFile(  # noqa: SIM115
                mode="a+", encoding="utf-8", errors="replace"
            )
        self.http_error: str | None = None

    def stderr_tail(self, lines: int = 3) -> str:
        """The last non-blank lines the server wrote to stderr, joined into one line."""
        if self.errlog is None or self.errlog.closed:
            return ""
        fd = self.errlog.fileno()
        size = os.fstat(fd).st_size
        data = os.pread(fd, STDERR_TAIL_CHARS, max(0, size - STDERR_TAIL_CHARS))
        text = data.decode("utf-8", errors="replace")
        kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
        return " | ".join(kept)

    async def note_response(self, response: Any) -> None:
        """An httpx response hook. Only requests count: a GET stream is optional."""
        if response.status_code >= 400 and response.request.method == "POST":
            self.http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()

    def close(self) -> None:
        if self.errlog is not None:
            self.errlog.close()


async def enter_client(
    config: ServerConfig,
    stack: AsyncExitStack,
    diagnostics: Diagnostics,
    roots: tuple[Path, ...] = (),
) -> Client:
    """Connect and hand back a `Client` past its handshake, entered on `stack` (so that it is
    closed by whoever closes the stack, in the task that entered it)."""
    transport = config.transport
    match transport:
        case StdioTransport():
            params = StdioServerParameters(
                command=transport.command,
                args=list(transport.args),
                # The SDK passes only a safe handful of variables by default; servers expect
                # the user's environment (as Claude Code gives it), without its credentials.
                env=server_environment(os.environ, transport.env),
                cwd=transport.cwd,
            )
            # The SDK starts the process with start_new_session=True: a process group of its
            # own, which its shutdown ends whole (stdin closed, then SIGTERM, then SIGKILL).
            assert diagnostics.errlog is not None, "a stdio connection has a stderr file"
            target = stdio_client(params, errlog=diagnostics.errlog)
        case ClientTransport(exchange=exchange):
            target = channel_transport(config.name, exchange)
        case HttpTransport(kind="sse"):
            target = sse_client(transport.url, headers=dict(transport.headers))
        case HttpTransport():
            http = await stack.enter_async_context(
                create_mcp_http_client(headers=dict(transport.headers))
            )
            http.event_hooks["response"].append(diagnostics.note_response)
            target = streamable_http_client(transport.url, http_client=http)
    # cache=None: tether lists once and keeps the listing; the SDK's cache would only add state.
    listed = ListRootsResult(roots=[Root(uri=FileUrl(p.as_uri()), name=p.name) for p in roots])

    async def list_roots(context: Any) -> ListRootsResult:
        del context  # the same roots for every request
        return listed

    # Declaring roots (the workspace) lets a server such as the filesystem one work there.
    client = Client(
        target,
        cache=None,
        client_info=CLIENT_INFO,
        list_roots_callback=list_roots if roots else None,
    )
    return await stack.enter_async_context(client)
