"""A client's parts wired to the client over the control channel: its hook callbacks
(`hook_callback`), its MCP servers (`mcp_message`), its answers to servers' forms
(elicitation), and hook lines when asked for; and a built session wired to the stream."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from tether.cli.client_parts import ClientParts
from tether.cli.control import ClientRefused, ControlChannel
from tether.cli.late_hooks import late_output
from tether.cli.model_switch import FallbackModel
from tether.cli.sdk_elicitation import client_forms
from tether.cli.sdk_lines import LineMaker
from tether.cli.session_mirror import mirror_session
from tether.cli.stream_stderr import warn
from tether.hooks import HookActivity
from tether.mcp.servers import ChannelClosed

if TYPE_CHECKING:
    from tether.cli.setup import Built
    from tether.cli.stream_json import StreamJsonFrontEnd


def told_to_client(activity: HookActivity, all_asked: bool) -> bool:
    """Whether a hook's activity is written as lines (`hook_started`, `hook_response`), as
    Claude Code writes them: SessionStart's to every client, the others' when it asked
    (`--include-hook-events`); never the client's own callbacks."""
    return activity.spec.callback_id is None and (
        all_asked or activity.spec.event == "SessionStart"
    )


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


def attach_session(front: StreamJsonFrontEnd, built: Built) -> LineMaker:
    """`built`'s session wired to the stream: its start-up notices said (on stderr, as -p
    says them, and as lines after the first `init`), its questions put to the client (with
    no Notification hook: a program answers, as in Claude Code), its events between turns,
    background ends and fallback switch written as lines and waking turns, its session file
    mirrored when asked for. Returns the lines' maker."""
    session = built.session
    lines = LineMaker(session.session_id, front.options.include_partial)
    lines.goes_on_from(session.cost_usd, session.api_ms, session.earlier_by_model)
    lines.watch_aside(session.agent)
    for notice in session.startup_notices:
        warn(notice)
    lines.untold.extend(session.startup_notices)
    session.can_ask = front.options.permission_prompt_tool is not None
    if session.agent.gate is not None:
        session.agent.gate.notify_on_ask = False
    if (late := late_output(session)) is not None:
        late.wakers.append(lambda _text: front.wakes.hook_woke(session))
    session.between_turns.append(lambda e: front.on_event(e, built, lines))
    background = session.agent.tool_context.background
    background.agent_watchers.append(lambda: front.wakes.task_ended(session))
    background.shell_watchers.append(lambda s: front.write_all(lines.command_ended(s)))
    background.shell_watchers.append(lambda _shell: front.wakes.task_ended(session))
    model = session.agent.model
    if isinstance(model, FallbackModel):
        model.watchers.append(lambda was, now: front.write(lines.system.fallback(was, now)))
    if front.options.session_mirror and session.recorder is not None:
        env = os.environ if front.opts.env is None else front.opts.env
        mirror_session(session.recorder, front.write, env)
    return lines
