"""Keys typed as a turn ends, on a real terminal, before the prompt is back: the prompt gets
every one of them (none taken by the terminal's line discipline, none held back by the
steering reader), as a user typing ahead expects."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl, held
from tether.cli.repl_rewind import PICK_QUESTION
from tether.testing import FakeModelServer, reply, text, tool_use

SHIFT_TAB = "\x1b[Z"
QUESTION = "? Allow this call?"

KEY_EVERY_S = 0.01
"""A fast typist: keys keep coming while the turn ends and the prompt comes back."""


@pytest.fixture
def repl(model_env: FakeModelServer, workspace: Path, home: Path) -> Iterator[PtyRepl]:
    terminal = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    terminal.wait_for("> ")
    yield terminal
    terminal.close()


@pytest.mark.timeout(90)
def test_esc_esc_pressed_as_the_reply_appears_opens_the_rewind_as_does_slash_rewind(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    model_env.script(reply(text("first answer")))
    repl.send("task\r")
    repl.wait_for("first answer")
    repl.send("\x1b\x1b")  # at once: the turn is still ending, the prompt not back yet
    repl.wait_for(PICK_QUESTION.strip())
    repl.send("\r")  # none
    repl.send("/rewind\r")  # Claude Code's command for the same
    repl.wait_for(PICK_QUESTION.strip(), 2)
    repl.send("\r")


@pytest.mark.timeout(90)
def test_shift_tab_while_the_agent_works_changes_the_mode_for_the_calls_that_follow(
    model_env: FakeModelServer, repl: PtyRepl, workspace: Path
) -> None:
    release = threading.Event()
    model_env.script(
        held(reply(tool_use("Write", file_path="made.txt", content="made\n")), release),  # type: ignore[arg-type]
        reply(text("Wrote it.")),
    )
    repl.send("write it\r")
    repl.wait_for("Thinking")
    repl.send(SHIFT_TAB)  # ask before edits -> accept edits, as at the prompt
    repl.wait_for("accept edits on")
    release.set()
    repl.wait_for("Wrote it.")
    assert (workspace / "made.txt").read_text() == "made\n"
    assert QUESTION not in repl.screen


@pytest.mark.timeout(90)
def test_a_message_typed_through_the_end_of_a_turn_arrives_whole(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    release = threading.Event()
    model_env.script(
        held(reply(text("first answer")), release),  # type: ignore[arg-type]
        reply(text("second answer")),
    )
    repl.send("task\r")
    repl.wait_for("Thinking")
    typed = "the next message, typed while the turn ends and the prompt comes back"
    repl.type(typed[:10], KEY_EVERY_S)
    release.set()
    repl.type(typed[10:] + "\r", KEY_EVERY_S)
    repl.wait_for("second answer")
    assert model_env.requests[1].last_user_text() == typed
