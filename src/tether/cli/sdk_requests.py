"""The SDK client's control requests, answered: `initialize` (its hooks, agents and skills;
the reply describes the session, and describes it as it is now when asked again),
`interrupt`, `set_permission_mode`, `set_model`, `set_max_thinking_tokens`,
`apply_flag_settings`, `mcp_status`, `mcp_reconnect`, `mcp_toggle`, `mcp_set_servers`,
`reload_skills`, `background_tasks`, `get_context_usage`, `stop_task`, `rewind_files`. A
request that cannot be done is refused with a one-line reason.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tether import __version__
from tether.cli.client_parts import ClientParts, client_agents
from tether.cli.control import Refused
from tether.cli.sdk_context_usage import context_usage
from tether.cli.sdk_mcp_requests import (
    mcp_reconnect,
    mcp_set_servers,
    mcp_status,
    mcp_toggle,
)
from tether.cli.sdk_rewind import rewind_files
from tether.cli.sdk_session_lines import CLAUDE_CODE_CONTRACT
from tether.config.numbers import client_hook_numbers_error
from tether.hooks import client_hooks
from tether.mcp.catalog import McpError
from tether.outside_text import error_summary
from tether.protocol import ConfigError, HarnessError, ToolError
from tether.store import SessionNotFound

if TYPE_CHECKING:
    from tether.cli.setup import Built
    from tether.cli.stream_json import StreamJsonFrontEnd

Handler = Callable[["StreamJsonFrontEnd", dict[str, Any]], Awaitable[dict[str, Any]]]
CHARS_PER_TOKEN = 4


class EndedInstead(Exception):
    """The request is not answered: the process ends with a result line saying why (as
    Claude Code ends when the session to resume does not exist)."""


async def answer_request(front: StreamJsonFrontEnd, request_id: str, body: dict[str, Any]) -> None:
    """Answer one request (a task of its own; a `control_cancel_request` cancels it)."""
    subtype = str(body.get("subtype"))
    handler = HANDLERS.get(subtype)
    if handler is None:
        front.channel.refuse(request_id, f"tether does not support the control request {subtype!r}")
        return
    try:
        front.channel.respond(request_id, await handler(front, body))
    except EndedInstead:
        pass
    except (Refused, ConfigError, HarnessError, McpError) as e:
        front.channel.refuse(request_id, str(e))
    except Exception as e:
        # A bug: the client still gets its answer (it would otherwise wait for one until its
        # timeout), and the traceback goes to stderr.
        traceback.print_exc()
        front.channel.refuse(request_id, f"internal error in tether: {error_summary(e)}")


async def _initialize(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    if front._building is not None:  # pyright: ignore[reportPrivateUsage]
        # Again (the TypeScript SDK's `reinitialize`): the session is described as it is now;
        # what it was built with stays.
        return _description(front, await front.session())
    hooks = body.get("hooks") or {}
    agents = body.get("agents") or {}
    skills = body.get("skills")
    if not isinstance(hooks, dict) or not isinstance(agents, dict):
        raise Refused("initialize: `hooks` and `agents` must be objects")
    numbers = client_hook_numbers_error(cast(dict[str, Any], hooks))
    if numbers is not None:
        raise ConfigError(f"the client's {numbers}")
    parts = ClientParts(
        hooks=client_hooks(cast(dict[str, Any], hooks)).specs,
        agents=client_agents(cast(dict[str, Any], agents)),
        skills=tuple(str(s) for s in cast(list[Any], skills)) if isinstance(skills, list) else None,
    )
    try:
        built = await front.session(parts, **_option_changes(front, body))
    except SessionNotFound as e:
        # As Claude Code: a result line with the error, so that the SDK raises its result
        # error (not a failed initialize), and the process ends.
        front.could_not_start(
            f"No conversation found with session ID: {front.opts.resume} ({e})", front.opts.resume
        )
        raise EndedInstead from None
    return _description(front, built)


def _description(front: StreamJsonFrontEnd, built: Built) -> dict[str, Any]:
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
        "account": built.account,
        "pid": os.getpid(),
        "claude_code_version": CLAUDE_CODE_CONTRACT,
        "tether_version": __version__,
        "current_permission_mode": front.mode_name,
        "hook_on_failure_supported": True,
        "mcp_servers_applied": True,
        "session_state": front.state,
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
    """Stop the running turn and, as Claude Code does, the background subagents still
    running: their end is told as a stopped subagent's, and to the model at its next request
    (no turn is woken for it); background commands run on."""
    queued = front.still_queued()  # before the stop: the turn's end takes them back
    if front.stops_taken():  # its turn has not begun (the session building, servers connecting)
        front.stop_taken = "interrupted by the client"
    if front.built:
        session = (await front.session()).session
        turn_running = session.busy
        session.interrupt("interrupted by the client")
        background = session.agent.tool_context.background
        if turn_running:
            running = background.running_agents()
            await asyncio.gather(*(background.stop_agent(a, interrupted=True) for a in running))
    return {"still_queued": queued}


async def _set_permission_mode(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    mode = body.get("mode")
    if not isinstance(mode, str):
        raise Refused("set_permission_mode needs a `mode`")
    if mode == "bypassPermissions" and not front.options.bypass_allowed:
        # As Claude Code: a client cannot lift every check from a session not started so.
        raise Refused(
            "Cannot set permission mode to bypassPermissions because the session was not "
            "launched with --dangerously-skip-permissions (or --permission-mode "
            "bypassPermissions, or --allow-dangerously-skip-permissions)"
        )
    front.set_mode(await front.session(), mode)
    return {"mode": mode}


async def _set_max_thinking_tokens(
    front: StreamJsonFrontEnd, body: dict[str, Any]
) -> dict[str, Any]:
    tokens = body.get("max_thinking_tokens")
    if tokens is not None and (
        isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0
    ):
        raise Refused("set_max_thinking_tokens needs a number of tokens (0 or more) or null")
    # 0: no extended thinking, as `--max-thinking-tokens 0`; null: the budget the session
    # started with, as Claude Code (thinking off at the start stays off).
    built = await front.session()
    budget = built.start_thinking_budget if tokens is None else tokens
    built.session.agent.thinking_budget = budget
    return {}


async def _apply_flag_settings(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    """Settings given as if on the command line, for the rest of the session: the model and
    permission rules take effect; other keys are said to be left alone."""
    settings = body.get("settings")
    if not isinstance(settings, dict):
        raise Refused("apply_flag_settings needs a `settings` object")
    settings = cast(dict[str, Any], settings)
    built = await front.session()
    session = built.session
    model = settings.get("model")
    if isinstance(model, str):
        if session.switch_model is None:
            raise Refused("this session cannot switch models")
        session.switch_model(model if model != "default" else None)
    permissions = settings.get("permissions")
    if isinstance(permissions, dict) and session.agent.gate is not None:
        session.agent.gate.add_layer(FLAG_SETTINGS, {"permissions": permissions})
    left = sorted(set(settings) - {"model", "permissions"})
    if left:
        _warn(f"apply_flag_settings: {', '.join(left)} not applied during a session")
    return {}


async def _reload_skills(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    """The skills the session offers, not those still waiting for a file their `paths` match
    (tether reads them once, when the session starts: its prompt, and so its cache, stays as
    it was)."""
    skills = (await front.session()).session.skills.listed()
    return {"skills": [{"name": s.name, "description": s.description} for s in skills]}


async def _background_tasks(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    """Claude Code moves a running call to the background (Ctrl+B); tether cannot move one
    that runs, so nothing was (a command started with `run_in_background` already is)."""
    return {"backgrounded": False}


async def _set_model(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    """As Claude Code: a name it does not know is the endpoint's to judge (`any_name`)."""
    from tether.cli.model_switch import ModelSwitcher

    model = body.get("model")
    session = (await front.session()).session
    switch = session.switch_model
    if switch is None:
        raise Refused("this session cannot switch models")
    named = model if isinstance(model, str) and model != "default" else None
    if named is not None and isinstance(switch, ModelSwitcher):
        switch.any_name(named)
    else:
        switch(named)
    return {}


async def _stop_task(front: StreamJsonFrontEnd, body: dict[str, Any]) -> dict[str, Any]:
    task_id = str(body.get("task_id"))
    shells = (await front.session()).session.agent.tool_context.background
    agent = shells.agent(task_id)
    if agent is not None:  # a background subagent: its end is told as a subagent's
        await shells.stop_agent(agent, by_user=True)
        return {}
    try:
        shell = shells.get(task_id)
    except ToolError:
        # As Claude Code answers it: done, there was nothing to stop (said on stderr).
        _warn(f"stop_task: no background task has id {task_id!r}; nothing was stopped")
        return {}
    await shells.stop(shell, by_user=True)
    front.write_lines(lambda lines: lines.tasks.command_stopped(shell.id, str(shell.log_path)))
    return {}


HANDLERS: dict[str, Handler] = {
    "initialize": _initialize,
    "interrupt": _interrupt,
    "set_permission_mode": _set_permission_mode,
    "set_model": _set_model,
    "mcp_status": mcp_status,
    "mcp_reconnect": mcp_reconnect,
    "mcp_toggle": mcp_toggle,
    "get_context_usage": context_usage,
    "stop_task": _stop_task,
    "rewind_files": rewind_files,
    "set_max_thinking_tokens": _set_max_thinking_tokens,
    "apply_flag_settings": _apply_flag_settings,
    "reload_skills": _reload_skills,
    "background_tasks": _background_tasks,
    "mcp_set_servers": mcp_set_servers,
}

FLAG_SETTINGS = Path("--settings (apply_flag_settings)")
"""How settings a client applies during the session are named (in messages)."""


def _warn(message: str) -> None:
    print(f"tether: {message}", file=sys.stderr, flush=True)
