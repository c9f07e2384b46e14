"""Why a teammate's prompt never reached its model, and what each sender of its messages is
told then: refused as too long for the window (and taken back out of the session), blocked
by a UserPromptSubmit hook, or a turn that failed before the prompt was kept."""

from __future__ import annotations

from dataclasses import dataclass

from tether.protocol import TurnFinished
from tether.store.mailbox import Message

BLOCKED = "UserPromptSubmit operation blocked by hook:\n"
"""How a turn whose prompt a UserPromptSubmit hook blocked ends (its `result`), as Claude Code."""


@dataclass(frozen=True)
class Ended:
    withdrawn: bool
    """The prompt was refused as too long and taken back out of the session."""
    unread: str | None
    """Why the prompt never reached the model (its messages are not read), or None."""


def ended(withdrawn: bool, kept: bool, finished: TurnFinished | None) -> Ended:
    error = (finished.error if finished is not None else None) or "no error given"
    if withdrawn:
        return Ended(
            True,
            f"it is too long for its context window ({error}). Send it shorter, or write the "
            "long part to a file and send its path.",
        )
    if kept:
        return Ended(False, None)
    if finished is not None and finished.result.startswith(BLOCKED):
        reason = finished.result.removeprefix(BLOCKED).split("\n\nOriginal prompt:")[0]
        return Ended(False, f"a UserPromptSubmit hook blocked it: {reason}")
    return Ended(False, f"its turn failed before its model was given it ({error})")


def not_read(member: str, message: Message, why: str) -> str:
    """What the sender of `message` is told when `member` did not read it."""
    return (
        f"{member} did not read your message {message.id} ({message.kind}, "
        f"{len(message.text)} characters): {why}"
    )
