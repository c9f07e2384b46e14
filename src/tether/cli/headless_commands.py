"""Claude Code's built-in commands a headless prompt (`-p`, an SDK program's prompt) runs
locally, never sent to the model: `/context` (what fills the window, as a Markdown table),
`/cost` (what the session spent), `/model [NAME]` (switch for this session, or say which) and
`/clear` (the front end starts a new session first: `headless_input.clears`).
Each answers as Claude Code does: a reply of no model, and a result with no model call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tether.core.session import Session

LocalCommand = Callable[["Session", str, float], Awaitable[tuple[bool, str]]]
"""A command's answer, given the session, the command's arguments and the seconds since the
front end started or `/clear` (the wall time `/cost` tells): whether it did what was asked,
and what it says."""


async def context_command(session: Session, args: str, wall_s: float) -> tuple[bool, str]:
    from tether.cli.context_view import context_parts

    window = session.agent.compaction.policy.window if session.agent.compaction else 0
    parts = context_parts(session)
    used = sum(tokens for _, tokens in parts)
    size = window or max(used, 1)
    rows = [*parts, ("Free space", max(0, size - used))]
    lines = [
        "## Context Usage",
        "",
        f"**Model:** {session.agent.model_id}  ",
        f"**Tokens:** {_short(used)} / {_short(size)} ({used * 100 // size}%)",
        "",
        "### Estimated usage by category",
        "",
        "| Category | Tokens | Percentage |",
        "|----------|--------|------------|",
        *(f"| {name} | {_short(tokens)} | {tokens * 100 / size:.1f}% |" for name, tokens in rows),
    ]
    return True, "\n".join(lines)


async def cost_command(session: Session, args: str, wall_s: float) -> tuple[bool, str]:
    from tether.cli.cost_summary import describe_cost

    return True, describe_cost(session, wall_s=wall_s)


async def model_command(session: Session, args: str, wall_s: float) -> tuple[bool, str]:
    if not args:
        return True, f"Current model: {session.agent.model_id}"
    from tether.cli.repl_commands import switch_model

    switched, said = await switch_model(session, args)
    if not switched:
        return False, said.plain.removeprefix("✗ ")
    return True, f"Set model to `{session.agent.model_id}` for this session only"


async def clear_command(session: Session, args: str, wall_s: float) -> tuple[bool, str]:
    """What `/clear` answers once the front end has started the new session (`clears`):
    nothing, as Claude Code (a `-p` run's conversation is new already)."""
    return True, ""


LOCAL_COMMANDS: dict[str, LocalCommand] = {
    "clear": clear_command,
    "context": context_command,
    "cost": cost_command,
    "model": model_command,
}


def _short(tokens: int) -> str:
    """Tokens as Claude Code writes them: 950, 14.7k, 1.2M."""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M".replace(".0M", "M")
    if tokens >= 1_000:
        return f"{tokens / 1_000:.1f}k".replace(".0k", "k")
    return str(tokens)
