"""What SessionStart hooks add to the conversation, in Claude Code's words to the model."""

from __future__ import annotations

from tether.hooks import HookOutcome


def start_context(outcome: HookOutcome, source: str) -> list[str]:
    """SessionStart hooks' context for `source` ("startup", "resume", "compact"...), as
    Claude Code says it: what a hook printed as plain text first, with whose it is
    (`SessionStart:startup hook success: X`), then each `additionalContext` a hook gave as
    JSON (`SessionStart hook additional context: X`). Said whose it is, the model can tell a
    hook's words from the user's."""
    plain = list(outcome.plain_context)
    given = list(outcome.additional_context)
    for printed in plain:  # a plain print is in both lists: said once, as printed
        if printed in given:
            given.remove(printed)
    return [f"SessionStart:{source} hook success: {text}" for text in plain] + [
        f"SessionStart hook additional context: {text}" for text in given
    ]
