"""Esc Esc in a REPL that resumed a conversation begun elsewhere (`-p`, another REPL): every
message the user sent in it is offered, in its order, not only those whose files' checkpoint
is kept; for one without, only the conversation goes back, and the REPL says so. And what the
sessions a REPL builds again (rewind, /clear, /resume) say of the project's files, said once.
On a real terminal against the fake model server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tests.cli.test_repl_rewind import pick
from tether.cli.repl_rewind import CONVERSATION_ONLY, FILES_STAY, HEADER, PICK_QUESTION
from tether.testing import FakeModelServer, reply, text, tool_use

ESC_ESC = "\x1b\x1b"


def _headless(workspace: Path, env: dict[str, str], *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tether", *args, "--permission-mode", "acceptEdits"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def _offered(repl: PtyRepl, count: int) -> str:
    """The `count`th rewind list, once drawn whole (the picker's question after it)."""
    repl.wait_until(
        lambda screen: (
            screen.count(HEADER) >= count and PICK_QUESTION.strip() in screen.split(HEADER)[count]
        ),
        f"rewind list {count}",
    )
    return repl.screen.split(HEADER)[count].split(PICK_QUESTION.strip())[0]


@pytest.mark.timeout(150)
def test_esc_esc_offers_the_messages_sent_with_p_before_the_resume(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    # A custom agent: the first message carries the agent types' reminder, never drawn.
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text("---\nname: helper\ndescription: helps\n---\nHelp.\n")
    notes = workspace / "notes.txt"
    model_env.script(
        reply(tool_use("Write", file_path="notes.txt", content="v1\n")),
        reply(text("Wrote v1.")),
        reply(text("ACK beta.")),
        reply(tool_use("Read", file_path="notes.txt")),
        reply(tool_use("Write", file_path="notes.txt", content="v3\n")),
        reply(text("Wrote v3.")),
        reply(text("Fresh from alpha.")),
    )
    env = anthropic_only(home)
    _headless(workspace, env, "-p", "FIRST-USER-MSG alpha")
    _headless(workspace, env, "-c", "-p", "SECOND-USER-MSG beta")
    repl = PtyRepl(workspace, env, "--permission-mode", "acceptEdits", "-c")
    try:
        repl.wait_for("> ")
        repl.send("THIRD-MSG gamma\r")
        repl.wait_for("Wrote v3.")
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        assert notes.read_text() == "v3\n"

        repl.send(ESC_ESC)
        offered = _offered(repl, 1)
        assert f"1. FIRST-USER-MSG alpha  {CONVERSATION_ONLY}" in offered
        assert f"2. SECOND-USER-MSG beta  {CONVERSATION_ONLY}" in offered
        assert "3. THIRD-MSG gamma" in offered
        assert f"gamma  {CONVERSATION_ONLY}" not in offered
        assert "system-reminder" not in offered
        shown_before = len(repl.screen)
        pick(repl, 3)
        repl.wait_for("Files put back: notes.txt")
        assert notes.read_text() == "v1\n"
        repl.wait_for("ACK beta.", 2)  # the conversation drawn again, whole
        repl.wait_shown("> THIRD-MSG gamma")
        redrawn = repl.screen[shown_before:]
        assert "> FIRST-USER-MSG alpha" in redrawn
        assert "> SECOND-USER-MSG beta" in redrawn
        assert "Available agent types" not in redrawn

        repl.send(ESC_ESC)  # clears the message put back
        repl.send(ESC_ESC)
        offered = _offered(repl, 2)
        assert "2. SECOND-USER-MSG beta" in offered
        assert "THIRD-MSG gamma" not in offered  # rewound away
        pick(repl, 1)
        repl.wait_for(FILES_STAY.split(":")[0])
        repl.wait_shown("> FIRST-USER-MSG alpha")
        assert notes.read_text() == "v1\n"  # -p kept no checkpoint: the files stay
        repl.send("\r")
        repl.wait_for("Fresh from alpha.")
    finally:
        repl.close()
    last = model_env.requests[-1].messages()
    assert [m["role"] for m in last] == ["user"]
    assert "FIRST-USER-MSG alpha" in json.dumps(last)


@pytest.mark.timeout(120)
def test_a_file_that_cannot_be_used_is_warned_of_once_whatever_the_restarts(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """A rewind, a /clear and a /resume each build the session again: the warning about an
    unusable agent file is said once, at the REPL's start (it was said at each)."""
    agents = home / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "nameless.md").write_text("---\ndescription: no name\n---\nBody.\n")
    model_env.script(reply(text("One.")), reply(text("Two.")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.wait_until(lambda screen: WARNED in _unwrapped(screen), "the warning")
        repl.send("first\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        repl.send(ESC_ESC)
        _offered(repl, 1)
        pick(repl, 1)
        repl.wait_shown("> first")
        repl.send(ESC_ESC)  # clears the message put back
        repl.send("/clear\r")
        repl.wait_for("Conversation cleared")
        repl.send("second\r")
        repl.wait_for("Two.")
        repl.wait_reading(TURN_END)
        repl.send("/resume 1\r")
        repl.wait_for("↺ ")
        repl.send("/help\r")
        repl.wait_for("Keys")
    finally:
        repl.close()
    assert _unwrapped(repl.screen).count(WARNED) == 1, repl.screen


WARNED = "nameless.md is unusable: 'name' is missing"


def _unwrapped(screen: str) -> str:
    """The screen's text with the terminal's line wrapping undone (every run of spaces one)."""
    return " ".join(screen.split())
