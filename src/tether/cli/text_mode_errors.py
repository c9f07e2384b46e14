"""What `-p` text mode prints on stdout when a turn ends in a limit or an API error, in Claude
Code's words (`Error: Reached max turns (1)`, `Error: Exceeded USD budget (0.5)`,
`API Error: 400 ...`): a script that reads `out=$(tether -p ...)` gets the reason, as it does
with Claude Code. The result line's `errors` keeps its own wording (the SDK's)."""

from __future__ import annotations

from tether.cli import sdk_api_error
from tether.cli.sdk_session_lines import SessionFacts, js_number
from tether.protocol import TurnFinished


def stdout_error(finished: TurnFinished, facts: SessionFacts) -> str | None:
    """The line Claude Code prints on stdout for this error; None when it is told elsewhere."""
    if finished.api_error_status is not None:
        return sdk_api_error.error_text(finished, facts.model_id, facts.endpoint)
    if finished.subtype == "error_max_turns":
        return f"Error: Reached max turns ({facts.max_turns})"
    if finished.subtype == "error_max_budget_usd" and facts.max_budget_usd is not None:
        return f"Error: Exceeded USD budget ({js_number(facts.max_budget_usd)})"
    return None
