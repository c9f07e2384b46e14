"""What an MCP server is to tether once its configuration is read: how to reach it, where it was
configured, and the limits its connection runs under."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from tether.slotted import Slotted

JsonRpcExchange = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any] | None]]
"""(server name, a JSON-RPC message) -> the JSON-RPC response to a request, or None once a
notification or a response was delivered. Raises `ChannelClosed` when it cannot deliver."""


class ChannelClosed(Exception):
    """The client serving an MCP server is gone, or refused a message; the message says why."""


Scope = Literal["project", "user", "local", "seed", "dynamic", "plugin"]
"""Where a server was configured: the repository's `.mcp.json` (needs the user's approval
once, in the REPL), the user's own configuration, this project's local settings, the seed's
`config/mcp_config.yaml`, or the command line (`--mcp-config`, Claude Code's "dynamic")."""


@dataclass(frozen=True)
class StdioTransport:
    """A server started as a subprocess, spoken to over its stdin and stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    """Added to tether's own environment, scrubbed of credentials (`environment.py`), for the
    server process."""
    cwd: Path | None = None


@dataclass(frozen=True)
class HttpTransport:
    """A server reached over the network: streamable HTTP, or the older SSE transport."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    kind: Literal["http", "sse"] = "http"


class ClientTransport(Slotted):
    """A server living in the client that drives tether (an SDK's `"type": "sdk"` server),
    reached through the client's own channel."""

    __slots__ = ("exchange",)
    exchange: Final[JsonRpcExchange]

    def __init__(self, exchange: JsonRpcExchange) -> None:
        self.exchange = exchange


Transport = StdioTransport | HttpTransport | ClientTransport


class ServerConfig(Slotted):
    """One configured MCP server. `name` is as configured (the tool names tether gives its
    tools are made valid for the model APIs separately)."""

    __slots__ = ("name", "scope", "source", "transport")
    name: Final[str]
    transport: Final[Transport]
    scope: Final[Scope]
    source: Final[Path]
    """The file it was read from (for messages, and for `tether mcp remove`)."""

    def __init__(self, name: str, transport: Transport, scope: Scope, source: Path) -> None:
        self.name = name
        self.transport = transport
        self.scope = scope
        self.source = source


class McpLimits(Slotted):
    """Time and size limits; from settings (`tether.mcp`) or Claude Code's variables."""

    __slots__ = ("call_timeout_s", "max_output_chars", "startup_timeout_s", "tool_search_share")
    startup_timeout_s: Final[float]
    """`MCP_TIMEOUT` (ms): how long a server may take to start and list its tools."""
    call_timeout_s: Final[float]
    """`MCP_TOOL_TIMEOUT` (ms): how long one tool call may take."""
    max_output_chars: Final[int]
    """`MAX_MCP_OUTPUT_TOKENS` (x4 characters): a longer result is cut with a note."""
    tool_search_share: Final[float]
    """When the MCP tools' definitions would take more than this share of the context window,
    they are offered through tool search instead of all at once."""

    def __init__(
        self,
        startup_timeout_s: float = 30.0,
        call_timeout_s: float = 120.0,
        max_output_chars: int = 100_000,
        tool_search_share: float = 0.10,
    ) -> None:
        self.startup_timeout_s = startup_timeout_s
        self.call_timeout_s = call_timeout_s
        self.max_output_chars = max_output_chars
        self.tool_search_share = tool_search_share
