"""Permission questions asked of an SDK client (`can_use_tool`, or the MCP tool named to answer
them) and its answers, as ops.

The client may allow (with the input to use instead, and permission updates: rules to add for
the session or to save, a mode to switch to) or deny (with a message for the model, and
whether to stop the turn).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from tether import bounded_json
from tether.cli.control import ClientRefused, ControlChannel
from tether.permissions import permission_updates
from tether.protocol import PermissionAnswer, PermissionAsked

if TYPE_CHECKING:
    from tether.cli.mcp_setup import McpSetup


def permission_request(request: PermissionAsked) -> dict[str, Any]:
    """The `can_use_tool` request for a question."""
    body: dict[str, Any] = {
        "subtype": "can_use_tool",
        "tool_name": request.tool,
        "input": request.input,
        "permission_suggestions": permission_updates(request.suggestion),
        "blocked_path": None,
        "decision_reason": request.reason,
        "tool_use_id": request.call_id,
    }
    if request.by_mode:
        body["decision_reason_type"] = "mode"
    return body


def answer_from_client(
    request: PermissionAsked, reply: dict[str, Any]
) -> tuple[PermissionAnswer, bool, str | None]:
    """The answer, whether the client asks to stop the turn, and the mode it switches to."""
    if reply.get("behavior") != "allow":
        message = reply.get("message")
        answer = PermissionAnswer(
            request_id=request.request_id,
            choice="deny",
            message=message if isinstance(message, str) and message else None,
        )
        return answer, reply.get("interrupt") is True, None
    updated = reply.get("updatedInput")
    session, saved, mode = _updates(reply.get("updatedPermissions"))
    answer = PermissionAnswer(
        request_id=request.request_id,
        choice="allow_once",
        updated_input=cast(dict[str, Any], updated) if isinstance(updated, dict) else None,
        session_rules=tuple(session),
        saved_rules=tuple(saved),
    )
    return answer, False, mode


SAVED_DESTINATIONS = frozenset({"localSettings", "projectSettings", "userSettings"})
"""Where a client asks a rule to be saved: tether keeps it as it keeps the user's "always
allow" answers (the workspace's remembered settings), never in a file the repository ships."""


def _updates(updates: Any) -> tuple[list[str], list[str], str | None]:
    """Allow rules the client's permission updates add for the session, those it asks to be
    saved, and a mode it sets."""
    session: list[str] = []
    saved: list[str] = []
    mode: str | None = None
    if not isinstance(updates, list):
        return session, saved, mode
    for update in cast(list[Any], updates):
        if not isinstance(update, dict):
            continue
        update = cast(dict[str, Any], update)
        if update.get("type") == "setMode" and isinstance(update.get("mode"), str):
            mode = update["mode"]
        if update.get("type") != "addRules" or update.get("behavior") != "allow":
            continue
        into = saved if update.get("destination") in SAVED_DESTINATIONS else session
        for rule in cast(list[Any], update.get("rules") or []):
            if isinstance(rule, dict) and isinstance(rule.get("toolName"), str):
                rule = cast(dict[str, Any], rule)
                content = rule.get("ruleContent")
                into.append(f"{rule['toolName']}({content})" if content else rule["toolName"])
    return session, saved, mode


async def client_reply(
    channel: ControlChannel, tool: str | None, mcp: McpSetup, request: PermissionAsked
) -> dict[str, Any]:
    """The client's answer (`tool` is `stdio`), or that of the MCP tool named to give it,
    which gets `{tool_name, input, tool_use_id}` and answers a JSON object as `can_use_tool`
    does. Raises `ClientRefused` when no answer comes."""
    if tool == "stdio" or tool is None:
        return await channel.request(permission_request(request))
    manager = mcp.manager
    if manager is None:
        raise ClientRefused(f"the permission prompt tool {tool} is not connected")
    arguments = {
        "tool_name": request.tool,
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
