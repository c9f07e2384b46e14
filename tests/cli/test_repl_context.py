"""What the user adds to a message at the prompt, on a real terminal: `@path` mentions (with
completion) and `!command`, as Claude Code adds them."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tether.testing import FakeModelServer, reply, text

TURN_END = " model call"


@pytest.fixture
def repl(model_env: FakeModelServer, workspace: Path, home: Path) -> Iterator[PtyRepl]:
    terminal = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    terminal.wait_for("> ")
    terminal.wait_for("(shift+tab to cycle)")  # the session is built
    yield terminal
    terminal.close()


def sent_text(model_env: FakeModelServer, index: int) -> str:
    return json.dumps(model_env.requests[index].messages()[-1]["content"])


@pytest.mark.timeout(90)
def test_an_at_mention_completes_and_the_file_joins_the_message(
    model_env: FakeModelServer, repl: PtyRepl, workspace: Path
) -> None:
    (workspace / "docs").mkdir()
    (workspace / "docs" / "release notes.md").write_text("Version 7 ships on Friday.\n")
    model_env.script(reply(text("Friday.")))
    repl.send("when does @do")
    repl.wait_shown(" docs/")  # the menu of completions
    repl.send("\t")
    repl.wait_shown("when does @docs/")
    repl.send("re")
    repl.wait_shown(" release notes.md")
    repl.send("\t")
    repl.wait_shown("when does @docs/release\\ notes.md")
    repl.send(" ship?\r")
    repl.wait_for(TURN_END)
    content = model_env.requests[0].messages()[-1]["content"]
    path = str((workspace / "docs" / "release notes.md").resolve())
    assert content[0] == {"type": "text", "text": "when does @docs/release\\ notes.md ship?"}
    assert json.dumps({"file_path": path}) in content[1]["text"]
    assert "Called the Read tool with the following input" in content[1]["text"]
    assert "Result of calling the Read tool" in content[2]["text"]
    assert "Version 7 ships on Friday." in content[2]["text"]


@pytest.mark.timeout(90)
def test_a_mention_of_a_denied_file_is_refused_not_read(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    (home / ".claude").mkdir()
    rules = {"permissions": {"deny": ["Read(**/secret.txt)"]}}
    (home / ".claude" / "settings.json").write_text(json.dumps(rules))
    (workspace / "secret.txt").write_text("the launch code is 1234\n")
    model_env.script(reply(text("Cannot.")))
    repl = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("(shift+tab to cycle)")
        repl.send("read @secret.txt\r")
        repl.wait_for(TURN_END)
    finally:
        repl.close()
    said = sent_text(model_env, 0)
    assert "1234" not in said
    assert "Error from calling the Read tool" in said
    assert "denied" in said.lower()


@pytest.mark.timeout(90)
def test_a_bang_command_runs_now_and_its_output_joins_the_next_message(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    model_env.script(reply(text("It printed a greeting.")))
    repl.send("!echo hello-from-the-shell\r")
    repl.wait_shown("hello-from-the-shell")
    assert model_env.requests == []  # no model call for the command itself
    repl.send("what did it print?\r")
    repl.wait_for(TURN_END)
    said = sent_text(model_env, 0)
    assert "<bash-input>echo hello-from-the-shell</bash-input>" in said
    assert "<bash-stdout>hello-from-the-shell" in said
    assert "what did it print?" in said


@pytest.mark.timeout(90)
def test_a_bang_command_a_rule_denies_does_not_run(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    (home / ".claude").mkdir()
    rules = {"permissions": {"deny": ["Bash(touch:*)"]}}
    (home / ".claude" / "settings.json").write_text(json.dumps(rules))
    repl = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("(shift+tab to cycle)")
        repl.send("!touch made.txt\r")
        repl.wait_shown("Bash(touch:*)")  # the rule that denied it, named
    finally:
        repl.close()
    assert not (workspace / "made.txt").exists()


@pytest.mark.timeout(90)
def test_context_draws_what_fills_the_window(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    (workspace / "CLAUDE.md").write_text("Always answer in French.\n" * 200)  # ~1.2k tokens
    model_env.script(reply(text("Bonjour.")))
    repl = PtyRepl(workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("(shift+tab to cycle)")
        repl.send("hello\r")
        repl.wait_for(TURN_END)
        repl.send("/context\r")
        repl.wait_shown("Free space:")
        lines = repl.lines
    finally:
        repl.close()
    drawn = "\n".join(lines)
    assert "Context: claude-sonnet-5-5 · " in drawn
    legend = {
        part: line.split(f"{part}: ")[1]
        for line in lines
        for part in ("System prompt", "Tools", "Instructions", "Memory", "Messages")
        if f"{part}: " in line
    }
    instructions = int(legend["Instructions"].removesuffix(" tokens").replace(",", ""))
    assert 1250 <= instructions < 1400  # 5,000 characters, with their heading and file name
    assert legend["Memory"] == "0 tokens"
    assert legend["Messages"] != "0 tokens"
    assert "⛁ ⛁" in drawn  # the grid


@pytest.mark.timeout(90)
def test_status_after_compact_shows_the_context_now_not_zero(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    said = ("one", "two", "three", "Summary of it all.")
    model_env.script(*(reply(text(s)) for s in said))
    for message in ("a", "b", "c"):
        repl.send(f"{message}\r")
        repl.wait_for(TURN_END, ("a", "b", "c").index(message) + 1)
        repl.wait_reading(TURN_END)
    repl.send("/compact\r")
    repl.wait_for("context compacted")
    repl.wait_reading("context compacted")
    repl.send("/status\r")
    line = repl.wait_shown("Context:")
    used = int(line.split("Context:")[1].split("tokens")[0].replace(",", ""))
    assert used > 1000  # the summary and the system prompt and tools the next request sends
