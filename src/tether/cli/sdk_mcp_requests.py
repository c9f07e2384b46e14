"""The SDK client's control requests about MCP servers, answered as Claude Code answers them:
`mcp_status`, `mcp_reconnect`, `mcp_toggle`, `mcp_set_servers`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tether.cli.control import Refused
from tether.cli.sdk_facts import server_config, server_source, server_state, server_transport
from tether.cli.terminal_text import terminal_safe
from tether.mcp.config import client_servers

if TYPE_CHECKING:
    from tether.cli.stream_json import StreamJsonFrontEnd
    from tether.mcp.catalog import McpTool, ServerStatus
    from tether.mcp.manager import McpManager


async def mcp_status(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    built = await front.session()
    manager = built.mcp.manager
    statuses = manager.statuses() if manager is not None else {}
    tools = manager.tools() if manager is not None else []
    servers: list[dict[str, Any]] = []
    for server in built.mcp.servers:
        status = statuses.get(server.name)
        if server_source(server) == "sdk":
            servers.append(_client_server(server.name, status, manager, tools))
            continue
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


def _client_server(
    name: str, status: ServerStatus | None, manager: McpManager | None, tools: list[McpTool]
) -> dict[str, Any]:
    """An SDK program's own server, as Claude Code reports it: the `serverInfo` it gave,
    scope `dynamic`, no configuration, its tools by name with their hints."""
    entry: dict[str, Any] = {"name": name, "status": server_state(status)}
    info = manager.server_info(name) if manager is not None else None
    if info is not None:
        entry["serverInfo"] = info
    entry |= {
        "transport": "sdk",
        "scope": "dynamic",
        "source": "sdk",
        "tools": [
            {"name": t.name, "annotations": t.annotations} for t in tools if t.server == name
        ],
    }
    if status is not None and status.error:
        entry["error"] = status.error
    return entry


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
    """The client's servers, set while the session runs, as Claude Code sets them: a server
    it names anew is connected (stdio, HTTP, SSE, or its own `sdk` one), one named with a
    changed configuration is replaced, one named as it is stays connected; servers it named
    before (and its own `sdk` ones) that it leaves out are closed. Servers of the settings
    files or `--mcp-config` stay unless named. The tools offered change from the next
    request. `added` are those that connected (or are connecting, with
    `connect_in_background`); `errors` those that cannot be used or did not connect."""
    wanted = body.get("servers")
    if not isinstance(wanted, dict):
        raise Refused("mcp_set_servers needs a `servers` object of server configurations")
    wanted = cast(dict[str, object], wanted)
    built = await front.session()
    await built.session.prepare()
    setup = built.mcp
    workspace = setup.roots[0] if setup.roots else Path.cwd()
    notes: list[str] = []
    usable, errors = client_servers(
        wanted, "mcp_set_servers", workspace, setup.env, notes, setup.client.mcp_exchange
    )
    for note in notes:  # as the front end warns: on stderr
        print(f"tether: {terminal_safe(note)}", file=sys.stderr, flush=True)
    current = {s.name: s for s in setup.servers}
    replaceable = {
        name
        for name, server in current.items()
        if server_source(server) == "sdk" or name in setup.named_by_client
    }
    removed = sorted(replaceable - set(wanted))
    for name in removed:
        await setup.remove(name)
    added: list[str] = []
    for name, server in usable.items():
        old = current.get(name)
        if old is not None and old.transport == server.transport:
            continue  # named as it is: left connected
        if old is not None:
            await setup.remove(name)
        setup.add(server)
        added.append(name)
    setup.named_by_client = set(wanted)
    manager = setup.manager
    if manager is not None and added and body.get("connect_in_background") is not True:
        await manager.connected(added)
        statuses = manager.statuses()
        for name in list(added):
            status = statuses.get(name)
            if status is not None and status.error:
                errors[name] = status.error
                added.remove(name)
    return {"added": added, "removed": removed, "errors": errors}


async def connected_servers(front: StreamJsonFrontEnd) -> McpManager | None:
    """The session's MCP servers, once it has connected them (a request may come first)."""
    built = await front.session()
    await built.session.prepare()
    return built.mcp.manager
