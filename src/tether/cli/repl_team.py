"""A team lead's mail in the REPL: each message shown as it arrives, and, as in Claude Code, a
message to an idle lead starting its turn (the prompt, waiting with nothing typed, ends with
`TEAM_TURN`); while the user types, the message waits to go with what they send."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from rich.text import Text

from tether.cli.startup import Ready
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.store.mailbox import Message as TeamMessage

TEAM_TURN = "\x00team-message"
"""What the prompt returns when a team message starts the lead's turn (no key makes it)."""


def team_message_line(message: TeamMessage) -> Text:
    """A message to the lead, as shown (the model reads it at its next call, or with the next
    message when no turn runs)."""
    said = message.text or message.kind.replace("_", " ")
    line = (
        f"✉ {message.sender}: {said}"
        if message.kind == "message"
        else (f"✉ {message.sender} ({message.kind}): {said}")
    )
    return Text(terminal_safe(line), style="cyan")


def wake_for_team(prompt: PromptSession[str], ready: Ready | None) -> None:
    """End the prompt with `TEAM_TURN` when it waits with nothing typed and no turn runs."""
    app = prompt.app
    if ready is None or ready.session.busy or prompt.default_buffer.text:
        return
    if app.is_running and app.future is not None and not app.future.done():
        app.exit(result=TEAM_TURN)


def team_prompt(ready: Ready | None) -> str:
    """The messages that woke the prompt, as the lead's next turn (empty when a turn already
    took them)."""
    return "\n\n".join(ready.session.take_queued()) if ready is not None else ""
