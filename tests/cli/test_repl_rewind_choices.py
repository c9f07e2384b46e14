"""The rewind list shows what each message changed in the files, as Claude Code's does, and
the message picked, a menu follows: restore code and conversation, the conversation only, the
code only, summarise from here or up to here, never mind; with the warning that restored files
go back whole and Bash changes are not undone. After each choice the session file stays valid:
a message sent next, then a headless resume, go on from what the choice left. On a real
terminal against the fake model server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tests.cli.test_repl_rewind import ESC_ESC, pick
from tests.cli.test_repl_rewind_resumed import _headless  # pyright: ignore[reportPrivateUsage]
from tether.cli.repl_rewind import HEADER, PICK_QUESTION
from tether.cli.rewind_choices import CHOICE_QUESTION, CHOICES, WARNING
from tether.config.settings import sessions_home
from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use

BOTH, CONVERSATION, CODE, FROM_HERE, UP_TO_HERE, NEVER_MIND = range(1, 7)


def _converse(model_env: FakeModelServer, repl: PtyRepl, summary: str | None) -> None:
    """Four messages: one that changes nothing, one that runs Bash, two that write notes.txt;
    then the replies to what follows the choice (`summary`: the summary's)."""
    model_env.script(
        reply(text("HELLO-BACK")),
        reply(tool_use("Bash", command="echo ran")),
        reply(text("BASH-DONE")),
        reply(tool_use("Write", file_path="notes.txt", content="v1\n")),
        reply(text("WROTE-V1")),
        reply(tool_use("Write", file_path="notes.txt", content="v2\n")),
        reply(text("WROTE-V2")),
        *([reply(text(summary))] if summary else []),
        reply(text("AFTER-DONE")),
        reply(text("RESUMED-DONE")),
    )
    for count, message in enumerate(
        ("hello", "please bash", "please write v1", "please write v2"), 1
    ):
        repl.send(f"{message}\r")
        repl.wait_for(TURN_END, count)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal


def _resumed(workspace: Path, env: dict[str, str], model_env: FakeModelServer) -> str:
    """A headless resume of the session after the choice: what its request sent."""
    listed = list_sessions(sessions_home(os.environ), workspace.resolve())
    assert len(listed) == 1
    _headless(workspace, env, "-p", "--resume", listed[0].session_id, "again")
    return json.dumps(model_env.requests[-1].messages())


@pytest.mark.timeout(150)
@pytest.mark.parametrize("choice", [BOTH, CONVERSATION, CODE, FROM_HERE, UP_TO_HERE])
def test_each_rewind_choice_leaves_a_session_that_resumes(
    model_env: FakeModelServer, workspace: Path, home: Path, choice: int
) -> None:
    notes = workspace / "notes.txt"
    summary = {FROM_HERE: "SUMMARY-FROM-HERE", UP_TO_HERE: "SUMMARY-UP-TO-HERE"}.get(choice)
    env = anthropic_only(home)
    repl = PtyRepl(workspace, env, "--permission-mode", "bypassPermissions")
    try:
        repl.wait_for("> ")
        _converse(model_env, repl, summary)
        assert notes.read_text() == "v2\n"
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        listed = repl.screen.split(HEADER)[-1]
        lines = {line.split(". ", 1)[1].split("  ")[0]: line for line in _numbered(listed)}
        assert "No code changes" in lines["hello"]
        assert "Code changes unknown" in lines["please bash"]
        assert "notes.txt +1" in lines["please write v1"]
        assert "-1" not in lines["please write v1"]
        assert "notes.txt +1 -1" in lines["please write v2"]
        pick(repl, 3, choice)
        menu = repl.screen.split(PICK_QUESTION.strip())[-1]
        for number, offered in enumerate(CHOICES, 1):
            assert f"{number}. {offered.value}" in menu
        assert WARNING in menu
        if choice in (BOTH, CONVERSATION):
            repl.wait_shown("> please write v1")  # back in the prompt, to edit
            repl.send(ESC_ESC)  # clears it
        elif choice == CODE:
            repl.wait_for("Files put back: notes.txt")
        else:
            repl.wait_for("context compacted")
        repl.wait_reading(TURN_END if choice in (CODE, BOTH, CONVERSATION) else "compacted")
        repl.send("after the choice\r")
        repl.wait_for("AFTER-DONE")
    finally:
        repl.close()
    after = json.dumps(model_env.requests[-1].messages())
    resumed = _resumed(workspace, env, model_env)
    for sent in (after, resumed):
        assert "after the choice" in sent
        assert ("HELLO-BACK" in sent) == (choice != UP_TO_HERE)
    assert "AFTER-DONE" in resumed
    if choice in (BOTH, CONVERSATION):
        assert "BASH-DONE" in resumed
        assert "please write v1" not in resumed
        assert "WROTE-V2" not in resumed
    if choice == CODE:
        assert "WROTE-V2" in resumed  # the conversation stays whole
    if choice == FROM_HERE:
        assert "BASH-DONE" in resumed  # before the message: verbatim
        assert "SUMMARY-FROM-HERE" in resumed
        assert "WROTE-V1" not in resumed
        assert "toolu_2" not in resumed
        assert "WROTE-V2" in resumed  # the newest reply stays, as a compaction keeps it
    if choice == UP_TO_HERE:
        assert "SUMMARY-UP-TO-HERE" in resumed
        assert "BASH-DONE" not in resumed
        assert "HELLO-BACK" not in resumed.split("SUMMARY")[1]
        assert "WROTE-V1" in resumed
        assert "WROTE-V2" in resumed
    # Only "code" choices touch the files: both and code put notes.txt back to before v1.
    assert notes.exists() == (choice not in (BOTH, CODE))


def _numbered(listed: str) -> list[str]:
    return [
        line.strip() for line in listed.splitlines() if line.strip()[:2] in {"1.", "2.", "3.", "4."}
    ]


@pytest.mark.timeout(90)
def test_never_mind_changes_nothing(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    repl = PtyRepl(workspace, anthropic_only(home), "--permission-mode", "bypassPermissions")
    try:
        repl.wait_for("> ")
        _converse(model_env, repl, None)
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        pick(repl, 4, NEVER_MIND)
        repl.wait_reading(CHOICE_QUESTION.strip())
        repl.send("after the choice\r")
        repl.wait_for("AFTER-DONE")
    finally:
        repl.close()
    assert (workspace / "notes.txt").read_text() == "v2\n"
    assert "WROTE-V2" in json.dumps(model_env.requests[-1].messages())
