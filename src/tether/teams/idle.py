"""What a teammate does when a turn ends and nothing waits: the `TeammateIdle` hooks (exit 2
keeps it working, their reason its next prompt; `continue: false` stops it, and its lead is
told why), then an idle notification to its lead with its last answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tether.core.session import Session
from tether.store.task_records import StoreUnavailable
from tether.teams.link import TeamLink
from tether.teams.protocol import ProtocolError

IDLE_SUMMARY_CHARS = 200
"""How much of its last answer a teammate's idle notification carries."""


async def when_idle(
    session: Session,
    link: TeamLink,
    *,
    say: Callable[[str], None],
    stop: Callable[[str], None],
    no_current: Callable[[], Awaitable[None]],
) -> list[str]:
    """The TeammateIdle hooks, then the idle notification: the next prompt (a hook's exit 2
    gives one), or none. A hook that stops the teammate calls `stop` with why."""
    name = link.member
    gate = session.agent.gate
    hooks = gate.hooks if gate is not None else None
    if hooks is not None and hooks.has("TeammateIdle"):
        outcome = await hooks.fire("TeammateIdle", {"teammate_name": name, "team_name": link.team})
        if outcome.stop:
            reason = outcome.stop_reason or "no reason given"
            cause = f"a TeammateIdle hook stopped it: {reason}"
            stop(cause)
            say(f"{name}: {cause}")
            link.note_event(link.protocol.state, "stopped", cause)
            try:  # its lead is told why, as Claude Code shows stopReason to its user
                await link.send(
                    link.protocol.lead,
                    "idle_notification",
                    "stopped by a TeammateIdle hook",
                    data={"reason": reason},
                )
            except (ProtocolError, StoreUnavailable) as e:
                say(f"{link.protocol.lead} not told that it stopped: {e}")
            return []
        if outcome.blocked:
            return [f"TeammateIdle hook: {outcome.reason or 'keep working'}"]
    last = last_answer(session)
    await no_current()
    lead = link.protocol.lead
    if lead != name:
        try:  # kept and sent again while the store is out of reach
            await link.notify(lead, "idle_notification", last[:IDLE_SUMMARY_CHARS])
        except ProtocolError as e:
            say(f"no idle notification to {lead}: {e}")
    return []


def last_answer(session: Session) -> str:
    for message in reversed(session.messages):
        if message.role == "assistant":
            return message.text()
    return ""
