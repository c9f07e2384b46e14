"""What `/cost` says of the session, as Claude Code's `/cost` says it: the total cost, the time
the model calls took (API) and the time since the start (wall), the lines its edits added and
removed, and the tokens and cost of each model; then tether's own breakdown from the ledger
(by tool, and by agent when subagents worked)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tether.cli.usage_text import format_tokens

if TYPE_CHECKING:
    from tether.core.session import Session
    from tether.ledger import Line


def describe_cost(
    session: Session,
    *,
    wall_s: float | None = None,
    by_model: Sequence[Line] = (),
    breakdown: Sequence[str] = (),
) -> str:
    """`wall_s`: the seconds since the front end started or `/clear` (no line without it),
    to which the runs before a resume add theirs.
    `by_model`: the ledger's lines of the session by model; without them the session's own
    totals are its current model's."""
    added, removed = session.lines_added, session.lines_removed
    lines = [
        f"Total cost:            ${session.cost_usd:.4f}",
        f"Total duration (API):  {duration_text(session.api_ms / 1000)}",
    ]
    if wall_s is not None:
        wall_s += session.earlier_wall_ms / 1000  # a resumed session's time goes on
        lines.append(f"Total duration (wall): {duration_text(wall_s)}")
    lines.append(
        f"Total code changes:    {added} line{'' if added == 1 else 's'} added,"
        f" {removed} line{'' if removed == 1 else 's'} removed"
    )
    lines.append("Usage by model:")
    if by_model:
        usage = [_row(m) for m in by_model]
    else:
        spent = session.usage
        usage = [
            (
                session.agent.model_id,
                spent.input_tokens,
                spent.output_tokens,
                spent.cache_read_input_tokens,
                spent.cache_creation_input_tokens,
                session.cost_usd,
            )
        ]
    width = max(len(model) for model, *_ in usage) + 1
    for model, given, out, read, wrote, cost in usage:
        lines.append(
            f"  {model + ':':>{width}}  {format_tokens(given)} input, {format_tokens(out)} output,"
            f" {format_tokens(read)} cache read, {format_tokens(wrote)} cache write (${cost:.4f})"
        )
    lines.extend(
        f"{model}: no known price, so its use counts as $0 and the total leaves it out"
        for model, given, out, read, wrote, cost in usage
        if cost == 0 and given + out + read + wrote > 0
    )
    return "\n".join([*lines, *breakdown])


def _row(line: Line) -> tuple[str, int, int, int, int, float]:
    return (
        line.key,
        line.input_tokens,
        int(line.output_tokens),
        line.cache_read_tokens,
        line.cache_write_tokens,
        line.cost_usd,
    )


def duration_text(seconds: float) -> str:
    """A duration as Claude Code writes it: 19.7s, 6m 19.7s, 6h 33m 10.2s."""
    tenths = round(max(seconds, 0.0) * 10)
    hours, tenths = divmod(tenths, 36000)
    minutes, tenths = divmod(tenths, 600)
    parts = [f"{hours}h"] if hours else []
    if hours or minutes:
        parts.append(f"{minutes}m")
    parts.append(f"{tenths / 10:.1f}s")
    return " ".join(parts)
