"""What `-p` text mode prints on stdout when a turn ends in a limit or an API error, in Claude
Code's words (`Error: Reached max turns (1)`, `Error: Exceeded USD budget (0.5)`,
`API Error: 400 ...`): a script that reads `out=$(tether -p ...)` gets the reason, as it does
with Claude Code. The result line's `errors` keeps its own wording (the SDK's)."""

from __future__ import annotations

from decimal import Decimal

from tether.cli import sdk_api_error
from tether.cli.sdk_session_lines import SessionFacts
from tether.protocol import TurnFinished


def stdout_error(finished: TurnFinished, facts: SessionFacts) -> str | None:
    """The line Claude Code prints on stdout for this error; None when it is told elsewhere."""
    if finished.api_error_status is not None:
        return sdk_api_error.error_text(finished)
    if finished.subtype == "error_max_turns":
        return f"Error: Reached max turns ({facts.max_turns})"
    if finished.subtype == "error_max_budget_usd" and facts.max_budget_usd is not None:
        return f"Error: Exceeded USD budget ({js_number(facts.max_budget_usd)})"
    return None


def js_number(value: float) -> str:
    """A number as JavaScript's `String()` writes it (`0.0001`, `5`, `1e-7`): Claude Code's
    figures are JavaScript's."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    if 1e-6 <= abs(value) < 1e21:
        return format(Decimal(repr(value)), "f")
    mantissa, exponent = repr(value).split("e")
    return f"{mantissa}e{int(exponent):+d}"
