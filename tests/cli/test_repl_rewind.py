"""Esc Esc at an empty prompt rewinds to before an earlier message: the files Write and Edit
changed since then are put back, the conversation goes on from the message before it (the
session file records the branch point), and the message is back in the prompt. On a real
terminal against the fake model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tether.cli.repl_rewind import NOTHING_TO_REWIND, PICK_QUESTION
from tether.cli.rewind_choices import CHOICE_QUESTION
from tether.config.settings import sessions_home
from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, reply, text, tool_use

ESC_ESC = "\x1b\x1b"


def pick(repl: PtyRepl, number: int, choice: int | None = None) -> None:
    """Answer the rewind list with `number`, then the menu that follows with `choice` (None:
    Enter, its first: code and conversation)."""
    asked = repl.screen.count(CHOICE_QUESTION.strip())
    repl.send(f"{number}\r")
    repl.wait_for(CHOICE_QUESTION.strip(), asked + 1)
    repl.send(f"{choice or ''}\r")


def _entries(workspace: Path) -> list[dict[str, object]]:
    [listed] = list_sessions(sessions_home(os.environ), workspace.resolve())
    return [json.loads(line) for line in listed.path.read_text().splitlines() if line.strip()]


@pytest.mark.timeout(120)
def test_esc_esc_rewinds_the_conversation_and_the_files(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    notes = workspace / "notes.txt"
    model_env.script(
        reply(tool_use("Write", file_path="notes.txt", content="one\n")),
        reply(text("Wrote one.")),
        reply(
            tool_use("Write", file_path="notes.txt", content="two\n"),
            tool_use("Write", file_path="extra.txt", content="new file\n"),
        ),
        reply(text("Wrote two.")),
        reply(text("Another way.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home), "--permission-mode", "acceptEdits")
    try:
        repl.wait_for("> ")
        repl.send(ESC_ESC)
        repl.wait_for(NOTHING_TO_REWIND)
        repl.send("write one\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        repl.send("now write two\r")
        repl.wait_for(TURN_END, 2)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        assert notes.read_text() == "two\n"
        assert (workspace / "extra.txt").exists()

        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        assert "1. write one" in repl.screen
        assert "2. now write two" in repl.screen
        pick(repl, 2)
        repl.wait_for("Files put back:")
        # The files are as they were when the second message was sent.
        assert notes.read_text() == "one\n"
        assert not (workspace / "extra.txt").exists()
        # The message is back in the prompt, to edit: Esc Esc clears it, then another goes.
        repl.wait_shown("> now write two")
        repl.send(ESC_ESC)
        repl.send("do it another way\r")
        repl.wait_for(TURN_END, 3)
    finally:
        repl.close()

    last = model_env.requests[-1].messages()
    said = json.dumps(last)
    assert "write one" in said
    assert "Wrote one." in said
    assert "now write two" not in said
    assert "Wrote two." not in said
    assert last[-1]["role"] == "user"
    assert "do it another way" in json.dumps(last[-1])
    # The session file keeps both branches; the new message hangs off the first turn's end.
    entries = _entries(workspace)
    by_uuid = {e["uuid"]: e for e in entries if "uuid" in e}
    prompt = next(e for e in entries if "do it another way" in json.dumps(e.get("message")))
    parent = by_uuid[prompt["parentUuid"]]
    assert "Wrote one." in json.dumps(parent.get("message"))
    assert any("now write two" in json.dumps(e.get("message")) for e in entries)
    [listed] = list_sessions(sessions_home(os.environ), workspace.resolve())
    branch = [json.dumps(r) for r in load_session(listed.path).raw_lines()]
    assert not any("Wrote two." in line for line in branch)


@pytest.mark.timeout(90)
def test_rewinding_to_the_first_message_starts_afresh_and_a_wrong_pick_changes_nothing(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(
        reply(tool_use("Write", file_path="made.txt", content="x\n")),
        reply(text("Made it.")),
        reply(text("Fresh start.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home), "--permission-mode", "acceptEdits")
    try:
        repl.wait_for("> ")
        repl.send("make a file\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        repl.send("7\r")
        repl.wait_for("No message '7' to rewind to.")
        assert (workspace / "made.txt").exists()
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip(), 2)
        pick(repl, 1)
        repl.wait_for("Files put back: made.txt")
        assert not (workspace / "made.txt").exists()
        repl.wait_shown("> make a file")
        repl.send("\r")
        repl.wait_for(TURN_END, 2)
    finally:
        repl.close()
    roles = [m["role"] for m in model_env.requests[-1].messages()]
    assert roles == ["user"]


@pytest.mark.timeout(120)
def test_after_a_rewind_clear_starts_a_new_conversation(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """The point a rewind went on from belongs to that session alone: `/clear` afterwards
    opens a new one (it used to end the REPL: "--resume-session-at needs --resume")."""
    model_env.script(
        reply(text("First.")),
        reply(text("Second.")),
        reply(text("Fresh.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("one\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        repl.send("two\r")
        repl.wait_for(TURN_END, 2)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        pick(repl, 2)
        repl.wait_shown("> two")
        repl.send(ESC_ESC)
        repl.send("/clear\r")
        repl.wait_for("Conversation cleared")
        repl.send("fresh start\r")
        repl.wait_for(TURN_END, 3)
    finally:
        code = repl.close()
    assert code in (0, None), repl.screen
    said = json.dumps(model_env.requests[-1].messages())
    assert "fresh start" in said
    assert "First." not in said
    assert len(list_sessions(sessions_home(os.environ), workspace.resolve())) == 2


@pytest.mark.timeout(120)
def test_the_rewound_conversation_is_drawn_as_the_user_saw_it(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """After Esc Esc, the conversation drawn again shows the messages as typed and the
    replies: not the reminders tether added for the model (a hook's context, a mentioned
    file's Read), nor the interrupt mark as a message of the user's."""
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    hook = {"type": "command", "command": "echo CONTEXT-FROM-HOOK"}
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}))
    (workspace / "notes.txt").write_text("NOTES-BODY\n")
    model_env.script(
        reply(text("Read them.")),
        reply(text("Second.")),
        reply(text("Third.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("look at @notes.txt\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        repl.send("two\r")
        repl.wait_for(TURN_END, 2)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        repl.send("three\r")
        repl.wait_for(TURN_END, 3)
        shown_before = len(repl.screen)
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        pick(repl, 3)
        repl.wait_for("Second.", 2)  # the conversation drawn again
        repl.wait_shown("> three")
        redrawn = repl.screen[shown_before:]
    finally:
        repl.close()
    assert "CONTEXT-FROM-HOOK" in json.dumps(model_env.requests[-1].messages())
    assert "NOTES-BODY" in json.dumps(model_env.requests[0].messages())
    assert "> look at @notes.txt" in redrawn
    assert "Read them." in redrawn
    assert "> two" in redrawn
    assert "Second." in redrawn
    for unseen in ("system-reminder", "CONTEXT-FROM-HOOK", "NOTES-BODY", "Read tool"):
        assert unseen not in redrawn, redrawn


@pytest.mark.timeout(120)
def test_esc_esc_puts_back_a_file_a_subagent_wrote(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(
        reply(
            tool_use(
                "Task", description="write", prompt="write it", subagent_type="general-purpose"
            )
        ),
        reply(tool_use("Write", file_path="sub_made.txt", content="by the subagent\n")),
        reply(text("Wrote it.")),
        reply(text("The subagent wrote it.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home), "--permission-mode", "acceptEdits")
    try:
        repl.wait_for("> ")
        repl.send("have a subagent write a file\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        assert (workspace / "sub_made.txt").exists()
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        pick(repl, 1)
        repl.wait_for("Files put back: sub_made.txt")
    finally:
        repl.close()
    assert not (workspace / "sub_made.txt").exists()


@pytest.mark.timeout(150)
def test_esc_esc_reaches_messages_sent_before_a_resume(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """Checkpoints are kept beside the session file: a REPL that resumes the session lists
    the earlier processes' messages too, and rewinding to one puts back what every later
    turn changed, this process's and the earlier ones'."""
    (workspace / "f.txt").write_text("V0\n")
    model_env.script(
        reply(tool_use("Write", file_path="a.txt", content="A\n")),
        reply(text("One done.")),
        reply(tool_use("Write", file_path="b.txt", content="B\n")),
        reply(text("Two done.")),
        reply(tool_use("Read", file_path="f.txt")),
        reply(tool_use("Write", file_path="f.txt", content="V3\n")),
        reply(text("Three done.")),
        reply(text("Again from the start.")),
    )
    env = anthropic_only(home)
    for args, message, said in (([], "first p1", "One done."), (["-c"], "second p2", "Two done.")):
        repl = PtyRepl(workspace, env, "--permission-mode", "acceptEdits", *args)
        try:
            repl.wait_for("> ")
            repl.send(message + "\r")
            repl.wait_for(said)
            repl.wait_reading(said)  # the turn is over: its checkpoint is kept
        finally:
            repl.close()
    repl = PtyRepl(workspace, env, "--permission-mode", "acceptEdits", "-c")
    try:
        repl.wait_for("> ")
        repl.send("third p3\r")
        repl.wait_for("Three done.")
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        assert (workspace / "f.txt").read_text() == "V3\n"
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        assert "1. first p1" in repl.screen
        assert "2. second p2" in repl.screen
        assert "3. third p3" in repl.screen
        pick(repl, 2)
        repl.wait_for("Files put back: b.txt, f.txt")
        assert (workspace / "f.txt").read_text() == "V0\n"
        assert not (workspace / "b.txt").exists()
        assert (workspace / "a.txt").read_text() == "A\n"
        repl.wait_shown("> second p2")
        repl.send(ESC_ESC)
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip(), 2)
        assert "2. second p2" not in repl.screen.split(PICK_QUESTION.strip())[-2]
        pick(repl, 1)
        repl.wait_for("Files put back: a.txt")
        assert not (workspace / "a.txt").exists()
        repl.wait_shown("> first p1")
        repl.send("\r")
        repl.wait_for("Again from the start.")
    finally:
        repl.close()
    assert [m["role"] for m in model_env.requests[-1].messages()] == ["user"]
    assert "first p1" in json.dumps(model_env.requests[-1].messages())


@pytest.mark.timeout(120)
def test_a_rewind_is_kept_in_the_session_file_though_nothing_is_sent_after_it(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """Rewind, send nothing, quit: the file says the session went back (a `rewind` entry), so
    a resume goes on from there, as the files do, with no warning of damage. The rewound
    conversation is drawn again whole, its first message too."""
    notes = workspace / "notes.txt"
    model_env.script(
        reply(text("ACK hello.")),
        reply(tool_use("Write", file_path="notes.txt", content="v1\n")),
        reply(text("Wrote v1.")),
        reply(tool_use("Write", file_path="notes.txt", content="v2\n")),
        reply(text("Wrote v2.")),
        reply(text("Back at v1.")),
    )
    env = anthropic_only(home)
    repl = PtyRepl(workspace, env, "--permission-mode", "acceptEdits")
    try:
        repl.wait_for("> ")
        repl.send("hello REDRAW-FIRST\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)  # keys sent before it meet a cooked terminal
        repl.send("please write v1\r")
        repl.wait_for(TURN_END, 2)
        repl.wait_reading(TURN_END)
        repl.send("please write v2\r")
        repl.wait_for(TURN_END, 3)
        repl.wait_reading(TURN_END)
        shown_before = len(repl.screen)
        repl.send(ESC_ESC)
        repl.wait_for(PICK_QUESTION.strip())
        pick(repl, 3)
        repl.wait_for("Files put back:")
        repl.wait_for("Wrote v1.", 2)  # the conversation drawn again, to its end
        repl.wait_shown("> please write v2")
        redrawn = repl.screen[shown_before:]
    finally:
        repl.close()
    assert notes.read_text() == "v1\n"
    assert "> hello REDRAW-FIRST" in redrawn
    assert "> please write v1" in redrawn
    assert any(e["type"] == "rewind" for e in _entries(workspace))
    [listed] = list_sessions(sessions_home(os.environ), workspace.resolve())
    loaded = load_session(listed.path)
    assert not any("Wrote v2." in json.dumps(r) for r in loaded.raw_lines())
    assert loaded.warnings == ()

    resumed = subprocess.run(
        [sys.executable, "-m", "tether", "-c", "-p", "where are we?"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "newest branch" not in resumed.stderr
    said = json.dumps(model_env.requests[-1].messages())
    assert "please write v1" in said
    assert "Wrote v1." in said
    assert "please write v2" not in said
    assert "Wrote v2." not in said
