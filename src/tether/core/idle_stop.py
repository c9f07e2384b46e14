"""What the repeat guard says when it ends a turn for want of headway (`repeated_calls`): the
calls it stopped, tool by tool, and why none of them counted, in the words the user reads (the
text output's error line, stream-json's result `errors`)."""

from __future__ import annotations

from collections.abc import Mapping

_NAMED_TOOLS = 4
"""How many tools the stop names with their counts; the rest are summed."""


def idle_stop_reason(
    idle: int, calls: Mapping[str, int], compactions: int, hung: str | None
) -> str:
    """Why a turn ends after `idle` replies in a row without headway: `calls`, per tool, the
    calls of those replies; `compactions`, those the loop came through with nothing new
    (0: none counted); `hung`, a teammate that looks hung."""
    laps = f", the conversation compacted {compactions} times" if compactions else ""
    ranked = sorted(calls.items(), key=lambda kv: (-kv[1], kv[0]))
    named = [f"{tool} {count}" for tool, count in ranked[:_NAMED_TOOLS]]
    rest = sum(count for _, count in ranked[_NAMED_TOOLS:])
    if rest:
        named.append(f"{len(ranked) - _NAMED_TOOLS} more tools {rest}")
    said = (
        f"the model changed no file and looked at nothing new in {idle} replies in a row{laps} "
        f"(its calls in them: {', '.join(named) if named else 'none'})"
    )
    return said + (f"; {hung}" if hung else "")
