"""A message typed while the agent works is queued, and the model reads it at its next call:
it is a user message like any other, so Esc Esc rewinds to it with the files as they were
when it reached the model. On a real terminal against the fake model server."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl, held
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tests.cli.test_repl_rewind import pick
from tether.cli.repl_rewind import CONVERSATION_ONLY, PICK_QUESTION
from tether.testing import FakeModelServer, reply, text, tool_use

ESC_ESC = "\x1b\x1b"


@pytest.mark.timeout(120)
def test_a_queued_message_has_a_checkpoint_of_the_files(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    notes = workspace / "notes.txt"
    release, reached = threading.Event(), threading.Event()
    model_env.script(
        reply(tool_use("Write", file_path="notes.txt", content="one\n")),
        held(reply(tool_use("Read", file_path=str(notes))), release, reached),  # type: ignore[arg-type]
        reply(tool_use("Write", file_path="notes.txt", content="two\n")),
        reply(text("Wrote two.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home), "--permission-mode", "acceptEdits")
    try:
        repl.wait_for("> ")
        repl.send("please write v1\r")
        repl.wait_for("● Write(")
        # Typed while the second call is on the wire, so it waits for the third: typed as
        # the Write ran, it could reach the second call first (the race CI once met).
        assert reached.wait(30)
        repl.send("QUEUED then write two\r")
        repl.wait_for("queued for the next step")
        release.set()
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        assert notes.read_text() == "two\n"
        assert "QUEUED then write two" in model_env.requests[2].last_user_text()
        assert repl.screen.count("● Write(notes.txt") == 2  # once for each call, not more

        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        assert "2. QUEUED then write two" in repl.screen
        assert CONVERSATION_ONLY not in repl.screen
        pick(repl, 2)
        repl.wait_for("Files put back: notes.txt")
        # As they were when the queued message reached the model: after the first Write.
        assert notes.read_text() == "one\n"
        repl.wait_shown("> QUEUED then write two")
    finally:
        repl.close()
