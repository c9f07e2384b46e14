"""The SDK client's control requests, answered: `initialize` (its hooks, agents and skills;
the reply describes the session), `interrupt`, `set_permission_mode`, `set_model`,
`mcp_status`, `mcp_reconnect`, `mcp_toggle`, `get_context_usage`, `stop_task`,
`rewind_files`. A request that cannot be done is refused with a one-line reason.
"""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from tether import __version__
from tether.cli.client_parts import ClientParts, client_agents
from tether.cli.sdk_facts import server_source, server_state
from tether.cli.sdk_lines import CLAUDE_CODE_CONTRACT
from tether.core.message_size import message_chars
from tether.hooks import client_hooks
from tether.mcp.catalog import McpError
from tether.protocol import ConfigError, HarnessError, ToolError

if TYPE_CHECKING:
    from tether.cli.stream_json import StreamJsonFrontEnd

Handler = Callable[["StreamJsonFrontEnd", dict[str, Any]], Awaitable[dict[str, Any]]]
CHARS_PER_TOKEN = 4


class Refused(Exception):
    """The request cannot be done; the message says why."""


async def answer_request(front: StreamJsonFrontEnd, request_id: str, body: dict[str, Any]) -> None:
    """Answer one request (a task of its own; a `control_cancel_request` cancels it)."""
    subtype = str(body.get("subtype"))
    handler = HANDLERS.get(subtype)
    if handler is None:
        front.channel.refuse(request_id, f"tether does not support the control request {subtype!r}")
        return
    try:
        front.channel.respond(request_id, await handler(front, body))
    except (Refused, ConfigError, HarnessError, McpError) as e:
        front.channel.refuse(request_id, str(e))
    except Exception as e:
        # A bug: the client still gets its answer (it would otherwise wait for one until its
        # timeout), and the traceback goes to stderr.
        traceback.print_exc()
        front.channel.refuse(request_id, f"internal error in tether: {e!r}")


async def _initialize(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    if front._building is not None:  # pyright: ignore[reportPrivateUsage]
        raise Refused("the session is already initialized")
    hooks = body.get("hooks") or {}
    agents = body.get("agents") or {}
    skills = body.get("skills")
    if not isinstance(hooks, dict) or not isinstance(agents, dict):
        raise Refused("initialize: `hooks` and `agents` must be objects")
    parts = ClientParts(
        hooks=client_hooks(cast(dict[str, Any], hooks)).specs,
        agents=client_agents(cast(dict[str, Any], agents)),
        skills=tuple(str(s) for s in cast(list[Any], skills)) if isinstance(skills, list) else None,
    )
    built = await front.session(parts, **_option_changes(front, body))
    session = built.session
    return {
        "commands": [
            {"name": name, "description": "", "argumentHint": ""}
            for name in front.facts(built).slash_commands
        ],
        "agents": [{"name": a.name, "description": a.description} for a in built.agents.agents],
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": [
            {
                "value": session.agent.model_id,
                "displayName": session.agent.model_id,
                "description": "",
            }
        ],
        "account": {"apiKeySource": built.key_source},
        "pid": os.getpid(),
        "claude_code_version": CLAUDE_CODE_CONTRACT,
        "tether_version": __version__,
        "current_permission_mode": front.mode_name,
        "hook_on_failure_supported": True,
        "mcp_servers_applied": True,
        "session_state": "idle",
    }


def _option_changes(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    """What the TypeScript SDK sends in `initialize` rather than on the command line: the
    system prompt (a list of parts), its addition, MCP servers, and the names of its own
    in-process servers (`sdkMcpServers`)."""
    changes: dict[str, Any] = {}
    system = body.get("systemPrompt")
    if isinstance(system, list):
        changes["system_prompt"] = "\n\n".join(str(p) for p in cast(list[Any], system) if p)
    elif isinstance(system, str):
        changes["system_prompt"] = system
    append = body.get("appendSystemPrompt")
    if isinstance(append, str) and append:
        before = front.opts.append_system_prompt
        changes["append_system_prompt"] = f"{before}\n\n{append}" if before else append
    servers: dict[str, Any] = {}
    configured = body.get("mcpServers")
    if isinstance(configured, dict):
        servers.update(cast(dict[str, Any], configured))
    own = body.get("sdkMcpServers")
    if isinstance(own, list):
        servers.update({str(n): {"type": "sdk", "name": str(n)} for n in cast(list[Any], own)})
    if servers:
        changes["mcp_configs"] = (*front.opts.mcp_configs, json.dumps({"mcpServers": servers}))
    return changes


async def _interrupt(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    if front.built:
        (await front.session()).session.interrupt("interrupted by the client")
    return {}


async def _set_permission_mode(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    mode = body.get("mode")
    if not isinstance(mode, str):
        raise Refused("set_permission_mode needs a `mode`")
    front.set_mode(await front.session(), mode)
    return {}


async def _set_model(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    model = body.get("model")
    session = (await front.session()).session
    if session.switch_model is None:
        raise Refused("this session cannot switch models")
    session.switch_model(model if isinstance(model, str) and model != "default" else None)
    return {}


async def _mcp_status(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
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
            "scope": server_source(server),
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


async def _mcp_reconnect(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    manager = (await front.session()).mcp.manager
    name = str(body.get("serverName"))
    if manager is None:
        raise Refused(f"there is no MCP server called {name!r}")
    status = await manager.reconnect(name)
    if status.error:
        raise Refused(f"MCP server {name!r} did not reconnect: {status.error}")
    return {}


async def _mcp_toggle(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    manager = (await front.session()).mcp.manager
    name = str(body.get("serverName"))
    if manager is None:
        raise Refused(f"there is no MCP server called {name!r}")
    await manager.set_enabled(name, body.get("enabled") is not False)
    return {}


async def _context_usage(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    built = await front.session()
    agent = built.session.agent
    system = len(agent.system_prompt) // CHARS_PER_TOKEN
    tools = len(json.dumps([t.model_dump() for t in agent.tools.specs()])) // CHARS_PER_TOKEN
    messages = sum(message_chars(m) for m in built.session.messages) // CHARS_PER_TOKEN
    total = system + tools + messages
    window = built.context_window
    return {
        "categories": [
            {"name": "System prompt", "tokens": system, "color": "promptBorder"},
            {"name": "System tools", "tokens": tools, "color": "inactive"},
            {"name": "Messages", "tokens": messages, "color": "purple_FOR_SUBAGENTS_ONLY"},
        ],
        "totalTokens": total,
        "maxTokens": window,
        "rawMaxTokens": window,
        "percentage": round(100 * total / window, 1) if window else 0.0,
        "model": agent.model_id,
        "isAutoCompactEnabled": agent.compaction is not None,
        "memoryFiles": [],
        "mcpTools": [],
        "agents": [],
        "gridRows": [],
    }


async def _stop_task(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    task_id = str(body.get("task_id"))
    shells = (await front.session()).session.agent.tool_context.background
    try:
        shell = shells.get(task_id)
    except ToolError as e:
        raise Refused(f"{e} (background commands are the tasks tether can stop)") from None
    await shells.stop(shell)
    return {}


async def _rewind_files(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    raise Refused(
        "tether keeps no file checkpoints per message; the Revert tool undoes a file's last change"
    )


HANDLERS: dict[str, Handler] = {
    "initialize": _initialize,
    "interrupt": _interrupt,
    "set_permission_mode": _set_permission_mode,
    "set_model": _set_model,
    "mcp_status": _mcp_status,
    "mcp_reconnect": _mcp_reconnect,
    "mcp_toggle": _mcp_toggle,
    "get_context_usage": _context_usage,
    "stop_task": _stop_task,
    "rewind_files": _rewind_files,
}
