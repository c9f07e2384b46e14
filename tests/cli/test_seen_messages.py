"""The conversation the REPL draws again (after a rewind or a resume) is what the user saw."""

from __future__ import annotations

from tether.cli.seen_messages import seen_messages
from tether.cli.user_context import shell_context
from tether.core.conversation import INTERRUPTED_MARK
from tether.core.lifecycle import reminder
from tether.protocol import Message, TextBlock


def user(*texts: str) -> Message:
    return Message(role="user", content=[TextBlock(text=t) for t in texts])


def test_reminders_go_interrupts_and_shell_commands_read_as_shown() -> None:
    messages = [
        user(reminder("Available agent types: ..."), "fix the bug", reminder("hook context")),
        Message(role="assistant", content=[TextBlock(text="On it.")]),
        user(INTERRUPTED_MARK),
        user(reminder("a background command ended")),
        user(shell_context("ls", "a.txt\nb.txt\n", failed=False), "and now?"),
    ]
    assert seen_messages(messages) == [
        "> fix the bug",
        "On it.",
        "⏹ Interrupted",
        "! ls\n  ⎿ a.txt\n    b.txt\n> and now?",
    ]
