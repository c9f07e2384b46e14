"""What the stream-json lines and replies say about a session beyond its events: its mode,
agents, skills, commands, MCP servers and their states, model limits, where its key came from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tether.cli.headless_input import HEADLESS_BUILT_INS
from tether.cli.sdk_session_lines import SessionFacts
from tether.cli.setup import Built
from tether.mcp.servers import ClientTransport, HttpTransport, ServerConfig, StdioTransport
from tether.models.endpoint import Endpoint

if TYPE_CHECKING:  # a session without MCP servers never loads the MCP package's records
    from tether.mcp.catalog import ServerStatus


def session_facts(built: Built, mode_name: str) -> SessionFacts:
    """What the init line and the result say about the session beyond its events."""
    session = built.session
    statuses = built.mcp.manager.statuses() if built.mcp.manager is not None else {}
    servers = tuple(
        {"name": s.name, "status": server_state(statuses.get(s.name)), "source": server_source(s)}
        for s in built.mcp.servers
    )
    skills = tuple(s.name for s in session.skills.listed())
    return SessionFacts(
        permission_mode=mode_name,
        agents=built.agents.names(),
        skills=skills,
        slash_commands=tuple(dict.fromkeys((*skills, *session.commands, *HEADLESS_BUILT_INS))),
        mcp_servers=servers,
        context_window=built.context_window,
        max_output_tokens=session.agent.max_tokens,
        api_key_source=built.key_source,
        additional_directories=tuple(str(d) for d in session.agent.tool_context.extra_dirs),
        sandbox_enabled=session.agent.tool_context.command_wrapper is not None,
        max_turns=session.agent.max_turns,
        max_budget_usd=session.agent.max_budget_usd,
        plugins=tuple(built.plugins.described()),
        provider=built.provider,
        model_names=built.names.named() if built.names is not None else {},
        model_id=session.agent.model_id,
        endpoint=_endpoint_url(session.agent.model),
    )


def _endpoint_url(model: object) -> str | None:
    """The base URL of an adapter that speaks to an endpoint (a scripted model has none)."""
    endpoint = getattr(model, "endpoint", None)
    return endpoint.base_url if isinstance(endpoint, Endpoint) else None


def server_state(status: ServerStatus | None) -> str:
    """Claude Code's name for a server's state."""
    if status is None:
        return "pending"
    return "disabled" if status.state == "stopped" else status.state


def server_source(server: ServerConfig) -> str:
    return "sdk" if isinstance(server.transport, ClientTransport) else server.scope


def server_transport(server: ServerConfig) -> str:
    """Claude Code's name for how a server is reached: stdio, http, sse or sdk."""
    transport = server.transport
    if isinstance(transport, ClientTransport):
        return "sdk"
    if isinstance(transport, HttpTransport):
        return transport.kind
    return "stdio"


def server_config(server: ServerConfig) -> dict[str, Any]:
    """A server's configuration as Claude Code reports it (`mcp_status`): how it is reached;
    header and environment values are not repeated (they may hold keys)."""
    transport = server.transport
    if isinstance(transport, StdioTransport):
        return {"type": "stdio", "command": transport.command, "args": list(transport.args)}
    if isinstance(transport, HttpTransport):
        return {"type": transport.kind, "url": transport.url}
    return {"type": "sdk", "name": server.name}
