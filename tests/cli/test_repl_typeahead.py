"""Keys typed as a turn ends, on a real terminal, before the prompt is back: the prompt gets
every one of them (none taken by the terminal's line discipline, none held back by the
steering reader), as a user typing ahead expects."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tether.testing import FakeModelServer, Reply, reply, text

KEY_EVERY_S = 0.01
"""A fast typist: keys keep coming while the turn ends and the prompt comes back."""


@pytest.fixture
def repl(model_env: FakeModelServer, workspace: Path, home: Path) -> Iterator[PtyRepl]:
    terminal = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    terminal.wait_for("> ")
    yield terminal
    terminal.close()


def held(answer: Reply, release: threading.Event) -> Callable[[object], Reply]:
    def turn(_request: object) -> Reply:
        release.wait(30)
        return answer

    return turn


@pytest.mark.timeout(90)
def test_esc_esc_pressed_as_the_reply_appears_opens_the_rewind(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    model_env.script(reply(text("first answer")))
    repl.send("task\r")
    repl.wait_for("first answer")
    repl.send("\x1b\x1b")  # at once: the turn is still ending, the prompt not back yet
    repl.wait_for("rewind to before which message?")
    repl.send("\r")  # none
    repl.wait_for("> ", 3)


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
