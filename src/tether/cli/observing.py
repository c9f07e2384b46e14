"""The session's events out of the process (`tether.observe`): the event log under
`$TETHER_HOME`, its `eventLog` view, and the `webhooks` sinks, attached to a built session."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping
from pathlib import Path

from tether.agents import SubagentRunner
from tether.cli.teams_tools import TEAMMATE_ENV
from tether.cli.terminal_text import terminal_safe
from tether.config.settings import Settings
from tether.core.session import Session
from tether.hooks.builtin import read_builtin_settings
from tether.observe.hub import EventContext, EventHub, Sink
from tether.observe.log_file import AppendFile
from tether.observe.records import LOG_NAME, MAIN_AGENT, log_dir
from tether.observe.webhook_settings import read_webhooks

WORKER_CLAIM_ENV = "TETHER_TASK_CLAIM"
"""`tether.teams.board.CLAIM_ENV`: set in the sessions a worker runs its tasks in."""
FLUSH_AT_EXIT_S = 3.0
"""How long the webhooks are given at the end of a session to send what is queued."""


def event_context(session_id: str, env: Mapping[str, str]) -> EventContext:
    """Whose a session's events are: a teammate's (its member name), a worker's (its owner
    name, and the task its claim is on), or the main agent's."""
    task_id = None
    if WORKER_CLAIM_ENV in env:  # the board's module (and its store's) only for a worker's
        from tether.teams.board import CLAIM_ENV, OWNER_ENV, lent_claims

        assert CLAIM_ENV == WORKER_CLAIM_ENV
        tasks = list(lent_claims(env))
        if tasks:
            task_id = tasks[0]
            return EventContext(session_id, env.get(OWNER_ENV) or MAIN_AGENT, task_id)
    return EventContext(session_id, env.get(TEAMMATE_ENV) or MAIN_AGENT, task_id)


def attach_observation(
    session: Session,
    settings: Settings,
    *,
    workspace: Path,
    home: Path,
    env: Mapping[str, str],
    subagents: SubagentRunner | None,
) -> EventHub:
    """Every event of the session and of its subagents recorded, off the loop; the settings
    checked first (a `ConfigError` names the key)."""
    webhooks = read_webhooks(settings.data, env)
    view = read_builtin_settings(settings.data, base_dir=workspace).event_log
    context = event_context(session.session_id, env)
    sinks: list[Sink] = []
    if webhooks:
        from tether.observe.webhooks import WebhookSink  # hmac and hashlib: only when used

        sinks.extend(WebhookSink(config) for config in webhooks)
    hub = EventHub(
        AppendFile(log_dir(home) / LOG_NAME),
        views=[AppendFile(view, max_bytes=None)] if view is not None else [],
        sinks=sinks,
        on_error=_tell,
        owner=context,
    )
    session.observers.append(hub.observer(context))
    if subagents is not None:
        subagents.observers.append(
            lambda agent_id, event: hub.observe(context.child(agent_id), event)
        )

    async def finish() -> None:
        for report in await asyncio.to_thread(hub.close, FLUSH_AT_EXIT_S):
            _tell(report)

    session.on_close.append(finish)
    return hub


def _tell(message: str) -> None:
    print(f"tether: {terminal_safe(message)}", file=sys.stderr)
