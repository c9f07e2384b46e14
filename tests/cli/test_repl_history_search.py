"""Ctrl+R at the message prompt, on a real terminal: the match shows as the user types, Enter
puts it into the prompt (to edit or send, as in Claude Code), Esc or Ctrl+G leaves the search
with the line as it was; no message typed after a search is lost."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tether.testing import FakeModelServer, reply, text

CTRL_R = "\x12"
CTRL_G = "\x07"


@pytest.fixture
def repl(model_env: FakeModelServer, workspace: Path, home: Path) -> Iterator[PtyRepl]:
    terminal = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    terminal.wait_for("> ")
    yield terminal
    terminal.close()


def _send_two(model_env: FakeModelServer, repl: PtyRepl) -> None:
    repl.send("hello CTRLR-TARGET-1\r")
    repl.wait_for("answer one")
    repl.wait_reading("answer one")
    repl.send("other message\r")
    repl.wait_for("answer two")
    repl.wait_reading("answer two")


@pytest.mark.timeout(90)
def test_enter_puts_the_match_into_the_prompt_and_what_follows_is_sent(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    model_env.script(
        reply(text("answer one")),
        reply(text("answer two")),
        reply(text("answer three")),
        reply(text("answer four")),
    )
    _send_two(model_env, repl)
    repl.send(CTRL_R)
    repl.send("CTRLR")
    repl.wait_until(
        lambda _s: any("> hello CTRLR-TARGET-1" in line for line in repl.lines),
        "the match in the prompt line while searching",
    )
    repl.send("\r")  # the match into the prompt: not sent yet
    repl.wait_until(
        lambda _s: not any("I-search" in line for line in repl.lines), "the search left"
    )
    assert len(model_env.requests) == 2
    repl.send(" again\r")  # edited and sent
    repl.wait_for("answer three")
    assert model_env.requests[2].last_user_text() == "hello CTRLR-TARGET-1 again"
    repl.wait_reading("answer three")
    repl.send("a new message\r")
    repl.wait_for("answer four")
    assert model_env.requests[3].last_user_text() == "a new message"


@pytest.mark.timeout(90)
@pytest.mark.parametrize("leave", ["\x1b", CTRL_G])
def test_esc_or_ctrl_g_leaves_the_search_with_the_line_as_it_was(
    model_env: FakeModelServer, repl: PtyRepl, leave: str
) -> None:
    model_env.script(reply(text("answer one")), reply(text("answer two")), reply(text("three")))
    _send_two(model_env, repl)
    repl.send("draft ")
    repl.send(CTRL_R)
    repl.send("CTRLR")
    repl.wait_shown("I-search backward: CTRLR")
    repl.send(leave)
    repl.wait_until(
        lambda _s: not any("I-search" in line for line in repl.lines), "the search left"
    )
    repl.send("kept\r")
    repl.wait_for("three")
    assert model_env.requests[2].last_user_text() == "draft kept"
