"""A client's parts wired to the client over the control channel: its hook callbacks
(`hook_callback`), its MCP servers (`mcp_message`), its answers to servers' forms
(elicitation), and hook lines when asked for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

from tether.cli.client_parts import ClientParts
from tether.cli.control import ClientRefused, ControlChannel
from tether.cli.sdk_elicitation import client_forms
from tether.hooks import HookActivity
from tether.mcp.servers import ChannelClosed


def wired(
    parts: ClientParts,
    channel: ControlChannel,
    hook_lines: Callable[[HookActivity], None] | None,
) -> ClientParts:
    """`parts`, with what reaches the client through `channel`; `hook_lines`: where hooks'
    activity goes as lines (None: not asked for)."""

    async def call_back(
        callback_id: str, hook_input: dict[str, Any], tool_use_id: str | None
    ) -> dict[str, Any]:
        body = {
            "subtype": "hook_callback",
            "callback_id": callback_id,
            "input": hook_input,
            "tool_use_id": tool_use_id,
        }
        try:
            return await channel.request(body)
        except ClientRefused as e:
            from tether.hooks import CallbackFailed  # with the hooks' runner, which calls this

            raise CallbackFailed(str(e)) from None

    async def exchange(server: str, message: dict[str, Any]) -> dict[str, Any] | None:
        body = {"subtype": "mcp_message", "server_name": server, "message": message}
        try:
            answer = await channel.request(body)
        except ClientRefused as e:
            raise ChannelClosed(str(e)) from None
        response = answer.get("mcp_response")
        return cast(dict[str, Any], response) if isinstance(response, dict) else None

    watchers: list[Callable[[HookActivity], None]] = []
    if hook_lines is not None:
        watchers.append(hook_lines)
    return replace(
        parts,
        hook_callback=call_back,
        mcp_exchange=exchange,
        hook_watchers=watchers,
        elicit=client_forms(channel),
    )
