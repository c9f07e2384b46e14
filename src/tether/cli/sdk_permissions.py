"""Permission questions asked of an SDK client (`can_use_tool`, or the MCP tool named to answer
them) and its answers, as ops.

The client may allow (with the input to use instead, and permission updates: rules to add for
the session or to save, a mode to switch to) or deny (with a message for the model, and
whether to stop the turn).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, cast

from tether import bounded_json
from tether.cli.control import ClientRefused, ControlChannel
from tether.protocol import PermissionAnswer, PermissionAsked, PermissionChange
from tether.protocol.tool_names import claude_code_name

if TYPE_CHECKING:
    from tether.cli.mcp_setup import McpSetup
    from tether.cli.setup import Built
    from tether.cli.stream_json import StreamJsonFrontEnd


def permission_request(request: PermissionAsked, fields: dict[str, Any]) -> dict[str, Any]:
    """The `can_use_tool` request for a question, with what `sdk_permission_fields` says of
    the call (its keys in Claude Code's order)."""
    body: dict[str, Any] = {
        "subtype": "can_use_tool",
        "tool_name": claude_code_name(request.tool),
        "display_name": fields.get("display_name", claude_code_name(request.tool)),
        "input": request.input,
        "permission_suggestions": request.suggestions,
    }
    for key in ("description", "blocked_path", "decision_reason", "decision_reason_type"):
        if key in fields:
            body[key] = fields[key]
    if request.by_mode:  # asked by the mode (plan), not for the call: tether's words
        body |= {"decision_reason": request.reason, "decision_reason_type": "mode"}
    body["tool_use_id"] = request.call_id
    if request.agent_id is not None:
        body["agent_id"] = request.agent_id
    return body


def answer_from_client(
    request: PermissionAsked, reply: dict[str, Any]
) -> tuple[PermissionAnswer, bool, str | None]:
    """The answer, whether the client asks to stop the turn (a subagent's call: the answer
    stops that subagent), and the mode it switches to."""
    if reply.get("behavior") != "allow":
        message = reply.get("message")
        answer = PermissionAnswer(
            request_id=request.request_id,
            choice="deny",
            message=message if isinstance(message, str) and message else None,
            message_whole=True,  # the model reads the client's message verbatim, as in CC
            # A subagent's call: only that subagent stops (as in Claude Code).
            stop=reply.get("interrupt") is True and request.agent_id is not None,
        )
        return answer, reply.get("interrupt") is True and request.agent_id is None, None
    updated = reply.get("updatedInput")
    changes, mode = _updates(reply.get("updatedPermissions"))
    answer = PermissionAnswer(
        request_id=request.request_id,
        choice="allow_once",
        updated_input=cast(dict[str, Any], updated) if isinstance(updated, dict) else None,
        changes=tuple(changes),
    )
    return answer, False, mode


_RULE_CHANGES = frozenset({"addRules", "replaceRules", "removeRules"})
_DIRECTORY_CHANGES = frozenset({"addDirectories", "removeDirectories"})


def _updates(updates: Any) -> tuple[list[PermissionChange], str | None]:
    """The client's permission updates (Claude Code's `PermissionUpdate` shapes) for the gate
    to apply, and a mode it sets (applied by the caller, who reports it). An entry of another
    shape is left out: it cannot be read as any rule."""
    changes: list[PermissionChange] = []
    mode: str | None = None
    if not isinstance(updates, list):
        return changes, mode
    for update in cast(list[Any], updates):
        if not isinstance(update, dict):
            continue
        update = cast(dict[str, Any], update)
        kind = update.get("type")
        destination = update.get("destination")
        where = destination if isinstance(destination, str) else "session"
        if kind == "setMode" and isinstance(update.get("mode"), str):
            mode = update["mode"]
        elif kind in _RULE_CHANGES and update.get("behavior") in ("allow", "deny", "ask"):
            rules = tuple(_rule_text(r) for r in cast(list[Any], update.get("rules") or []))
            changes.append(
                PermissionChange(
                    type=kind,
                    destination=where,
                    behavior=update["behavior"],
                    rules=tuple(r for r in rules if r is not None),
                )
            )
        elif kind in _DIRECTORY_CHANGES:
            directories = cast(list[Any], update.get("directories") or [])
            changes.append(
                PermissionChange(
                    type=kind,
                    destination=where,
                    directories=tuple(d for d in directories if isinstance(d, str) and d),
                )
            )
    return changes, mode


def _rule_text(rule: Any) -> str | None:
    """`Tool` or `Tool(content)` for a `{toolName, ruleContent}` rule value."""
    if not isinstance(rule, dict) or not isinstance(rule.get("toolName"), str):
        return None
    rule = cast(dict[str, Any], rule)
    content = rule.get("ruleContent")
    return f"{rule['toolName']}({content})" if content else rule["toolName"]


async def client_reply(
    channel: ControlChannel,
    tool: str | None,
    mcp: McpSetup,
    request: PermissionAsked,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """The client's answer (`tool` is `stdio`), or that of the MCP tool named to give it,
    which gets `{tool_name, input, tool_use_id}` and answers a JSON object as `can_use_tool`
    does. Raises `ClientRefused` when no answer comes."""
    if tool == "stdio" or tool is None:
        return await channel.request(permission_request(request, fields))
    manager = mcp.manager
    if manager is None:
        raise ClientRefused(f"the permission prompt tool {tool} is not connected")
    arguments = {
        "tool_name": claude_code_name(request.tool),
        "input": request.input,
        "tool_use_id": request.call_id,
    }
    result = await manager.call(tool, arguments)
    try:
        reply = bounded_json.loads(result.text)
    except json.JSONDecodeError:
        reply = None
    if result.is_error or not isinstance(reply, dict):
        raise ClientRefused(f"{tool} did not answer with a decision: {result.text[:200]}")
    return cast(dict[str, Any], reply)


async def ask_client(front: StreamJsonFrontEnd, built: Built, request: PermissionAsked) -> None:
    """A permission question, asked of the stream-json front end's client; its answer
    applied (a mode it sets, an interrupt it asks for)."""
    session = built.session
    lines = front.lines
    assert lines is not None
    front.write(lines.system.state("requires_action"))
    try:
        tool = front.options.permission_prompt_tool
        reply = await client_reply(front.channel, tool, built.mcp, request, _fields(built, request))
    except ClientRefused as e:
        reply = {"behavior": "deny", "message": f"the client could not answer: {e}"}
    answer, interrupt, mode = answer_from_client(request, reply)
    if mode is not None:
        front.set_mode(built, mode)
    session.answer(answer)
    if interrupt:
        # Once the denial has landed (the waiting call runs first), so that it is counted
        # among the turn's denials as Claude Code counts it.
        loop = asyncio.get_running_loop()
        loop.call_soon(session.interrupt, "interrupted by the client")
    front.write(lines.system.state("running"))


def _fields(built: Built, request: PermissionAsked) -> dict[str, Any]:
    # Imported when first asked: the shell parser it needs stays off the start-up path.
    from tether.cli.sdk_permission_fields import call_fields

    gate = built.session.agent.gate
    if gate is None:
        return {}
    ctx = gate.permissions
    cwd = gate.shell_cwd() if gate.shell_cwd is not None else ctx.cwd
    return call_fields(request.tool, request.input, ctx, cwd)
