"""How tether reaches a configured server with the MCP SDK (all but the client's own servers,
which `client_channel` reaches): a subprocess over stdio (tether's
environment without its credentials, plus the configured one; stderr to a file of ours; its
own process group), streamable HTTP with the configured headers, or the older SSE transport."""

from __future__ import annotations

import logging
import os
from contextlib import AsyncExitStack

import httpx2
from mcp.client import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import MCP_DEFAULT_TIMEOUT, create_mcp_http_client
from mcp.types import Implementation

from tether import __version__
from tether.mcp.answers import answers
from tether.mcp.client_side import ClientSide
from tether.mcp.diagnostics import Diagnostics
from tether.mcp.environment import server_environment
from tether.mcp.servers import ClientTransport, HttpTransport, ServerConfig, StdioTransport
from tether.processes import TEAM_RUN_ENV, bound_to_this_process, run_marked

CLIENT_INFO = Implementation(name="tether", version=__version__)

# The SDK logs what a server does wrong (a line on stdout that is not JSON-RPC, with its
# traceback). With no handler configured, Python's last-resort handler would print that over
# the terminal's UI; records still reach any handler tether or a user configures.
logging.getLogger("mcp").addHandler(logging.NullHandler())


async def enter_client(
    config: ServerConfig,
    stack: AsyncExitStack,
    diagnostics: Diagnostics,
    client_side: ClientSide,
) -> Client:
    """Connect and hand back a `Client` past its handshake, entered on `stack` (so that it is
    closed by whoever closes the stack, in the task that entered it). It declares the roots,
    elicitation and sampling `client_side` answers (see `tether.mcp.answers`)."""
    transport = config.transport
    match transport:
        case StdioTransport():
            command, args = transport.command, list(transport.args)
            if os.environ.get(TEAM_RUN_ENV):  # a teammate: nobody is there after its death
                command, args = bound_to_this_process(command, args)
            params = StdioServerParameters(
                command=command,
                args=args,
                # The SDK passes only a safe handful of variables by default; servers expect
                # the user's environment (as Claude Code gives it), without its credentials;
                # with the run's marker, so that a killed tether's servers are found and
                # stopped by the next start (`tether.tools.run_record`).
                env=run_marked(server_environment(os.environ, transport.env)),
                cwd=transport.cwd,
            )
            # The SDK starts the process with start_new_session=True: a process group of its
            # own, which its shutdown ends whole (stdin closed, then SIGTERM, then SIGKILL); a
            # teammate's also ends when the teammate dies without a shutdown (SIGKILL).
            assert diagnostics.errlog is not None, "a stdio connection has a stderr file"
            target = stdio_client(params, errlog=diagnostics.errlog)
        case ClientTransport():
            raise ValueError("the client's own servers are reached by client_channel")
        case HttpTransport(kind="sse"):

            def sse_http_client(
                headers: dict[str, str] | None = None,
                timeout: httpx2.Timeout | None = None,
                auth: httpx2.Auth | None = None,
            ) -> httpx2.AsyncClient:
                http = create_mcp_http_client(headers=headers, timeout=timeout, auth=auth)
                http.event_hooks["response"].append(diagnostics.note_sse_response)
                return http

            # The SDK's SSE default bounds each POST at 5 s, which a loaded machine passes
            # while connecting to a server that is there; the streamable transport's bound
            # (30 s) applies to both, and tether's own start-up and call limits watch the rest.
            target = sse_client(
                transport.url,
                headers=dict(transport.headers),
                timeout=MCP_DEFAULT_TIMEOUT,
                httpx_client_factory=sse_http_client,
            )
        case HttpTransport():
            http = await stack.enter_async_context(
                create_mcp_http_client(headers=dict(transport.headers))
            )
            http.event_hooks["response"].append(diagnostics.note_response)
            target = streamable_http_client(transport.url, http_client=http)
    # cache=None: tether lists once and keeps the listing; the SDK's cache would only add state.
    # Declaring roots (the workspace) lets a server such as the filesystem one work there.
    client = Client(
        target,
        cache=None,
        client_info=CLIENT_INFO,
        **answers(config.name, client_side),
    )
    return await stack.enter_async_context(client)
