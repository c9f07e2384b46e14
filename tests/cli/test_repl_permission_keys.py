"""The permission question acts on the digit alone, as Claude Code's does: no Enter after it.
On a real terminal against the fake model server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.repl_terminal import ANSWER_LINE
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tether.testing import FakeModelServer, reply, text, tool_use


@pytest.mark.timeout(90)
def test_a_digit_alone_answers_the_permission_question(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(
        reply(tool_use("Bash", command="touch made.txt")),
        reply(text("Made.")),
        reply(tool_use("Bash", command="touch other.txt")),
        reply(text("Not made.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("make it\r")
        repl.wait_for(ANSWER_LINE)
        repl.send("1")  # no Enter
        repl.wait_for(TURN_END)
        assert (workspace / "made.txt").exists()
        repl.wait_reading(TURN_END)
        repl.send("make the other\r")
        repl.wait_for(ANSWER_LINE, 2)
        repl.send("3")
        repl.wait_for(TURN_END, 2)
        assert not (workspace / "other.txt").exists()
    finally:
        repl.close()


@pytest.mark.timeout(90)
def test_an_always_allow_rule_is_listed_as_the_projects(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """Right after "always allow", /permissions lists the rule as saved for the project (it
    listed it under "command line and this session" until the next start)."""
    model_env.script(reply(tool_use("Bash", command="touch made.txt")), reply(text("Made.")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("make it\r")
        repl.wait_for(ANSWER_LINE)
        repl.send("2\r")  # a rule kept for good takes Enter
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)
        repl.send("/permissions\r")
        repl.wait_for("saved for this project")
        assert "command line and this session" not in repl.screen
    finally:
        repl.close()


@pytest.mark.timeout(90)
def test_keys_spent_on_the_question_stay_out_of_the_message(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """A "2" cancelled with Esc is not left in the prompt; a line typed at the question is
    kept for the prompt, not sent to the model with the denial."""
    model_env.script(
        reply(tool_use("Bash", command="touch made.txt")),
        reply(text("Denied once.")),
        reply(tool_use("Bash", command="touch other.txt")),
        reply(text("Denied twice.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("make it\r")
        repl.wait_for(ANSWER_LINE)
        repl.send("2")
        repl.send("\x1b")  # Esc: denied; the "2" was the answer's, not the message's
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)
        assert not any(line.startswith("> 2") for line in repl.lines), repl.screen
        repl.send("make the other\r")
        repl.wait_for(ANSWER_LINE, 2)
        repl.send("ok do it\r")
        repl.send("and more\r")  # a second line: a new word, not glued to the first
        repl.send("3")
        repl.wait_for(TURN_END, 2)
        repl.wait_reading(TURN_END)
        assert any(line.startswith("> ok do it and more") for line in repl.lines), repl.screen
    finally:
        repl.close()
    assert "ok do it" not in str(model_env.requests[3].messages())
