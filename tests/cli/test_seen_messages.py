"""The conversation the REPL draws again (after a rewind or a resume) is what the user saw."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import anthropic_only
from tether.cli.seen_messages import seen_messages
from tether.cli.user_context import shell_context
from tether.core.conversation import INTERRUPTED_MARK
from tether.core.lifecycle import reminder
from tether.protocol import Message, TextBlock
from tether.testing import FakeModelServer, reply, text, tool_use


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


@pytest.mark.timeout(120)
def test_a_resumed_repl_draws_earlier_calls_as_the_live_turn_drew_them(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """The headline with the file as shown live, the change it made under it; not the call's
    input as JSON."""
    model_env.script(
        reply(tool_use("Write", file_path=str(workspace / "f.txt"), content="alpha\nbeta\n")),
        reply(tool_use("Bash", command="echo ran-it")),
        reply(text("Wrote it.")),
    )
    env = anthropic_only(home)
    repl = PtyRepl(workspace, env, "--permission-mode", "bypassPermissions")
    try:
        repl.wait_for("> ")
        repl.send("write f\r")
        repl.wait_for("Wrote it.")
        repl.wait_reading("Wrote it.")
    finally:
        repl.close()
    repl = PtyRepl(workspace, env, "-c")
    try:
        repl.wait_until(lambda screen: "Wrote it." in screen.partition("↺ ")[2], "the redraw")
        shown = repl.screen.partition("↺ ")[2]
    finally:
        repl.close()
    lines = [line.rstrip() for line in shown.splitlines()]
    assert "● Write(f.txt)" in lines, shown
    assert "+alpha" in shown, shown
    assert "+beta" in shown, shown
    assert "● Bash(echo ran-it)" in lines, shown
    assert "ran-it" in shown.partition("● Bash(echo ran-it)")[2], shown
    assert '{"file_path"' not in shown
    assert "Wrote it." in shown
