"""The SDK client's control requests about MCP servers, answered as Claude Code answers them:
`mcp_status`, `mcp_reconnect`, `mcp_toggle`, `mcp_set_servers`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from tether.cli.control import Refused
from tether.cli.sdk_facts import server_config, server_source, server_state, server_transport

if TYPE_CHECKING:
    from tether.cli.stream_json import StreamJsonFrontEnd
    from tether.mcp.manager import McpManager


async def mcp_status(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    built = await front.session()
    manager = built.mcp.manager
    statuses = manager.statuses() if manager is not None else {}
    tools = manager.tools() if manager is not None else []
    servers: list[dict[str, Any]] = []
    for server in built.mcp.servers:
        status = statuses.get(server.name)
        entry: dict[str, Any] = {
            "name": server.name,
            "status": server_state(status),
            "config": server_config(server),
            "transport": server_transport(server),
            "scope": server_source(server),
            "source": server_source(server),
            "tools": [
                {"name": t.name, "description": t.description}
                for t in tools
                if t.server == server.name
            ],
        }
        if status is not None and status.error:
            entry["error"] = status.error
        servers.append(entry)
    return {"mcpServers": servers}


async def mcp_reconnect(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    manager = await connected_servers(front)
    name = str(body.get("serverName"))
    if manager is None:
        raise Refused(f"there is no MCP server called {name!r}")
    if server_state(manager.statuses().get(name)) == "disabled":
        raise Refused(f"MCP server {name} is disabled: enable it (mcp_toggle) before reconnecting")
    status = await manager.reconnect(name)
    if status.error:
        raise Refused(f"MCP server {name!r} did not reconnect: {status.error}")
    return {}


async def mcp_toggle(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    manager = await connected_servers(front)
    name = str(body.get("serverName"))
    if manager is None:
        raise Refused(f"there is no MCP server called {name!r}")
    await manager.set_enabled(name, body.get("enabled") is not False)
    return {}


async def mcp_set_servers(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    """The client's servers, replaced: those it no longer names are disabled; tether
    connects servers when the session starts, so one it names anew is reported as an error."""
    wanted = body.get("servers")
    if not isinstance(wanted, dict):
        raise Refused("mcp_set_servers needs a `servers` object")
    built = await front.session()
    manager = await connected_servers(front)
    current = {s.name for s in built.mcp.servers if server_source(s) in ("dynamic", "sdk")}
    removed = sorted(current - set(cast(dict[str, Any], wanted)))
    if manager is not None:
        for name in removed:
            await manager.set_enabled(name, False)
    added = sorted(set(cast(dict[str, Any], wanted)) - current)
    errors = {
        name: "tether connects MCP servers when the session starts: give it with the options"
        for name in added
    }
    return {"added": [], "removed": removed, "errors": errors}


async def connected_servers(front: StreamJsonFrontEnd) -> McpManager | None:
    """The session's MCP servers, once it has connected them (a request may come first)."""
    built = await front.session()
    await built.session.prepare()
    return built.mcp.manager
