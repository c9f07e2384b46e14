"""An MCP server's configuration as `tether mcp list` and `tether mcp get` show it, as text or
JSON, its secrets (environment values, headers) hidden unless asked for."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from tether.mcp.servers import ClientTransport, HttpTransport, ServerConfig
from tether.shown_urls import shown_url

SECRET = "***"


def describe(server: ServerConfig, show_secrets: bool) -> dict[str, Any]:
    """The server as `mcp list --json` and `mcp get --json` give it (secrets hidden unless
    `show_secrets`)."""

    def shown(values: Mapping[str, str]) -> dict[str, str]:
        return dict(values) if show_secrets else dict.fromkeys(values, SECRET)

    body = {"name": server.name, "scope": server.scope, "source": str(server.source)}
    transport = server.transport
    if isinstance(transport, HttpTransport):
        headers = shown(transport.headers)
        return {**body, "type": transport.kind, "url": transport.url, "headers": headers}
    if isinstance(transport, ClientTransport):
        return {**body, "type": "sdk"}
    cwd = str(transport.cwd) if transport.cwd else None
    return {
        **body,
        "type": "stdio",
        "command": transport.command,
        "args": list(transport.args),
        "env": shown(transport.env),
        "cwd": cwd,
    }


def summary(server: ServerConfig) -> str:
    """What the server is, in one line: its URL or its command."""
    transport = server.transport
    if isinstance(transport, HttpTransport):
        return f"{shown_url(transport.url, path=True)} ({transport.kind.upper()})"
    if isinstance(transport, ClientTransport):
        return "in the client (SDK)"
    return shlex.join([transport.command, *transport.args])


def server_lines(server: ServerConfig, *, show_secrets: bool) -> list[str]:
    """What `mcp get` prints of the server's configuration (secrets hidden unless
    `show_secrets`)."""

    def shown(value: str) -> str:
        return value if show_secrets else SECRET

    transport = server.transport
    out = [f"{server.name}:", f"  Scope: {server.scope} ({server.source})"]
    if isinstance(transport, HttpTransport):
        out += [
            f"  Type: {transport.kind}",
            f"  URL: {transport.url if show_secrets else shown_url(transport.url, path=True)}",
        ]
        lines = [f"{k}: {shown(v)}" for k, v in transport.headers.items()]
        label = "Headers"
    elif isinstance(transport, ClientTransport):
        out.append("  Type: sdk (in the client)")
        lines, label = [], ""
    else:
        out.append("  Type: stdio")
        out.append(f"  Command: {shlex.join([transport.command, *transport.args])}")
        if transport.cwd:
            out.append(f"  Working directory: {transport.cwd}")
        lines = [f"{k}={shown(v)}" for k, v in transport.env.items()]
        label = "Environment"
    if lines:
        out.append(f"  {label}:")
        out += [f"    {line}" for line in lines]
    return out
