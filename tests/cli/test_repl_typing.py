"""Keys typed while a turn runs, on a real terminal: they reach the model in the order typed,
and a permission question that appears meanwhile never takes them as its answer."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl, held
from tether.testing import FakeModelServer, reply, text, tool_use

QUESTION = "? Allow this call?"
KEY_EVERY_S = 0.05
"""A brisk typist's pace: slow enough that the REPL reads keys one by one as they come."""


@pytest.fixture
def repl(model_env: FakeModelServer, workspace: Path, home: Path) -> Iterator[PtyRepl]:
    terminal = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    terminal.wait_for("> ")
    yield terminal
    terminal.close()


@pytest.mark.timeout(90)
def test_text_typed_around_a_turn_reaches_the_model_in_order(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    release = threading.Event()
    words = " ".join(f"word{i}" for i in range(20))
    model_env.script(
        held(reply(text(words), delay_s=0.02), release),  # type: ignore[arg-type]
        reply(text("done")),
    )
    # Keys right behind Enter: the message prompt reads them with it, before the turn starts.
    repl.send("task\rthe quick")
    repl.wait_for("the quick▏")  # in the draft under the spinner
    repl.type(" brown fox", KEY_EVERY_S)
    repl.wait_for("the quick brown fox▏")
    release.set()
    repl.wait_for("model call")  # the turn is over: the draft waits at the prompt
    repl.type(" jumps over the lazy dog\r", KEY_EVERY_S)
    repl.wait_for("done")
    assert model_env.requests[1].last_user_text() == "the quick brown fox jumps over the lazy dog"


@pytest.mark.timeout(90)
def test_a_question_shown_while_the_user_types_takes_none_of_the_keys(
    model_env: FakeModelServer, repl: PtyRepl, workspace: Path
) -> None:
    release = threading.Event()
    model_env.script(
        held(reply(text("On it."), tool_use("Bash", command="touch made.txt")), release),  # type: ignore[arg-type]
        reply(text("Left it.")),
    )
    repl.send("task\r")
    repl.wait_for("Thinking")
    repl.type("please check the other ", KEY_EVERY_S)
    release.set()  # the question comes while the user types on
    repl.type("directory ", KEY_EVERY_S)
    repl.wait_for(QUESTION)
    # An answer key ("y" of "quickly", "n" of "when") inside words typed on answers nothing,
    # and the Enter that ends them sends nothing either: the line waits in the draft.
    repl.type("quickly when you are ready\r", KEY_EVERY_S)
    typed = "please check the other directory quickly when you are ready"
    repl.type("n\r", KEY_EVERY_S)  # the deliberate answer
    repl.wait_for("Left it.")
    assert not (workspace / "made.txt").exists()
    second = model_env.requests[1]
    assert second.tool_result_errors() == [True]
    assert typed not in str(second.messages())  # not sent along with the denial
    repl.wait_for(f"> {typed}")  # kept for the prompt, whole
