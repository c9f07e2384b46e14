"""The REPL's commands about the session (/clear, /model, /status, /permissions, /mcp, the
/resume picker) and Shift+Tab, on a real terminal against the fake model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tether.cli.repl import CLEARED
from tether.cli.repl_sessions import NOT_PICKED, PICK_QUESTION
from tether.config.settings import sessions_home
from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use

TURN_END = " model call"
"""In the line that sums up a turn, once it is over."""


def anthropic_only(home: Path) -> dict[str, str]:
    """The test's environment without the OpenAI-compatible endpoint, so that a model name
    nobody serves cannot fall through to it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return {**env, "HOME": str(home)}


@pytest.fixture
def repl(model_env: FakeModelServer, workspace: Path, home: Path) -> Iterator[PtyRepl]:
    terminal = PtyRepl(workspace, anthropic_only(home))
    terminal.wait_for("> ")
    yield terminal
    terminal.close()


def titles(workspace: Path) -> list[str | None]:
    """This project's sessions' titles, the newest first."""
    return [s.title for s in list_sessions(sessions_home(os.environ), workspace.resolve())]


@pytest.mark.timeout(90)
def test_clear_starts_a_new_session_and_keeps_the_old_one(
    model_env: FakeModelServer, repl: PtyRepl, workspace: Path
) -> None:
    model_env.script(reply(text("First answer.")), reply(text("Second answer.")))
    repl.send("remember the word apple\r")
    repl.wait_for(TURN_END)
    repl.send("/clear\r")
    repl.wait_for(CLEARED)
    repl.send("what was the word?\r")
    repl.wait_for(TURN_END, 2)
    second = model_env.requests[1].messages()
    assert [m["role"] for m in second] == ["user"]
    assert "apple" not in json.dumps(second)
    assert "\x1b[2J" in repl.raw  # the screen was cleared
    assert titles(workspace) == ["what was the word?", "remember the word apple"]


@pytest.mark.timeout(90)
def test_model_shows_switches_and_refuses_an_unknown_name(
    model_env: FakeModelServer, repl: PtyRepl
) -> None:
    model_env.script(reply(text("Fast answer.")))
    repl.send("/model\r")
    repl.wait_for("Model: claude-sonnet-5-5")
    repl.send("/model no-such-model\r")
    repl.wait_for("✗ /model no-such-model:")
    repl.wait_for("(still claude-sonnet-5-5)")
    repl.send("/model haiku\r")
    repl.wait_for("(was claude-sonnet-5-5)")
    repl.send("hello\r")
    repl.wait_for(TURN_END)
    assert [r.body["model"] for r in model_env.requests] == ["claude-haiku-5-5"]


@pytest.mark.timeout(120)
def test_status_permissions_and_mcp_describe_the_session(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    rules = {"allow": ["Bash(git status)"], "deny": ["Read(./secrets/**)"]}
    settings.write_text(json.dumps({"permissions": rules}))
    env = anthropic_only(home)
    add = [sys.executable, "-m", "tether", "mcp", "add", "-s", "user", "clock", "--"]
    server = str(Path(sys.executable).with_name("mcp-server-time"))
    subprocess.run([*add, server], cwd=workspace, env=env, check=True, capture_output=True)
    repl = PtyRepl(workspace, env)
    try:
        repl.wait_for("> ")
        # The server connects in the background: /mcp says so until it has.
        for asked in range(1, 200):
            repl.send("/mcp\r")
            repl.wait_for(" tools", count=asked)
            if "clock                connected  2 tools" in repl.screen:
                break
            assert "clock                pending    0 tools" in repl.screen
        assert "clock                connected  2 tools" in repl.screen
        repl.send("/status\r")
        repl.wait_for("Context:")
        repl.send("/permissions\r")
        repl.wait_for("Read(./secrets/**)")
        screen = repl.screen
        for line in (
            "Model:      claude-sonnet-5-5",
            "Mode:       default",
            f"Workspace:  {workspace.resolve()}",
            "Session:    ",
            "Context:    0 tokens",
            "MCP:        clock (connected)",
            "~/.claude/settings.json",
            "  allow Bash(git status)",
            "  deny  Read(./secrets/**)",
        ):
            assert line in screen
    finally:
        repl.close()


@pytest.mark.timeout(90)
def test_the_resume_picker_gives_the_prompt_back(model_env: FakeModelServer, repl: PtyRepl) -> None:
    model_env.script(reply(text("Noted.")), reply(text("Back again.")))
    repl.send("remember the word pear\r")
    repl.wait_for(TURN_END)
    repl.send("/clear\r")
    repl.wait_for(CLEARED)
    repl.send("/resume\r")
    repl.wait_for("resume which?")
    repl.send("1\r")
    repl.wait_for("↺ resumed session")
    asked = repl.screen.count("resume which?")
    repl.send("and now?\r")
    repl.wait_for(TURN_END, 2)
    assert repl.screen.count("resume which?") == asked  # the message prompt is "> " again
    assert "pear" in json.dumps(model_env.requests[1].messages())


@pytest.mark.timeout(120)
def test_a_server_that_fails_to_connect_is_said_in_a_notice_and_mcp_says_why(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """Claude Code says when an MCP server fails to connect; /mcp shows why. Every read of the
    screen is bounded (`PtyRepl.WAIT_S`) and the REPL is killed if Ctrl+D does not end it, so a
    notice that never comes fails the test instead of hanging it."""
    env = anthropic_only(home)
    add = [sys.executable, "-m", "tether", "mcp", "add", "-s", "user", "broken", "--"]
    crash = [sys.executable, "-c", "import sys; sys.stderr.write('no database here'); sys.exit(3)"]
    subprocess.run([*add, *crash], cwd=workspace, env=env, check=True, capture_output=True)
    model_env.script(reply(text("Still here.")))
    repl = PtyRepl(workspace, env)
    try:
        repl.wait_for("> ")
        notice = repl.wait_shown("failed to connect")
        assert notice.strip() == "⚠ MCP server 'broken' failed to connect · /mcp for details"
        repl.send("/mcp\r")
        failed = repl.wait_shown("broken               failed")
        assert "no database here" in failed or "exit" in failed
        repl.send("hello\r")
        repl.wait_for(TURN_END)
        assert repl.screen.count("failed to connect") == 1  # said once, not per request
        repl.wait_reading(TURN_END)
    finally:
        assert repl.close() is not None  # it ended on Ctrl+D, not killed


@pytest.mark.timeout(120)
def test_permissions_adds_and_removes_rules_in_claude_codes_settings_files(
    model_env: FakeModelServer, repl: PtyRepl, workspace: Path, home: Path
) -> None:
    """`/permissions add` writes the rule where Claude Code's /permissions does (the local
    project file by default, or the user's) and it holds from the next call; `/permissions
    remove` takes it out of the file and the session."""
    model_env.script(
        reply(tool_use("Bash", command="touch made.txt")),
        reply(text("Made it.")),
        reply(tool_use("Bash", command="touch made.txt")),
        reply(text("Refused.")),
    )
    local = workspace / ".claude" / "settings.local.json"
    user = home / ".claude" / "settings.json"
    repl.send("/permissions add allow Bash(touch made.txt)\r")
    repl.wait_for("✓ Added allow rule Bash(touch made.txt)")
    repl.send("/permissions add deny WebFetch --user\r")
    repl.wait_for("✓ Added deny rule WebFetch")
    repl.send("/permissions add allow Bash(unclosed\r")
    repl.wait_for("✗ /permissions: ")
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["Bash(touch made.txt)"]}}
    assert json.loads(user.read_text()) == {"permissions": {"deny": ["WebFetch"]}}
    assert "/settings.local.json" in (workspace / ".claude" / ".gitignore").read_text()
    repl.send("make it\r")  # allowed by the new rule: no question
    repl.wait_for(TURN_END)
    assert (workspace / "made.txt").exists()
    assert "Allow this call?" not in repl.screen
    (workspace / "made.txt").unlink()

    repl.wait_reading(TURN_END)
    repl.send("/permissions remove Bash(touch made.txt)\r")
    repl.wait_for("✓ Removed Bash(touch made.txt): allow rule from")
    assert json.loads(local.read_text()) == {"permissions": {"allow": []}}
    repl.send("/permissions remove Bash(nothing)\r")
    repl.wait_for("✗ No settings file /permissions edits holds the rule Bash(nothing)")
    repl.send("again\r")  # no rule allows it now: asked, and answered no
    repl.wait_for("press 1")
    repl.send("3\r")
    repl.wait_for(TURN_END, 2)
    assert not (workspace / "made.txt").exists()


@pytest.mark.timeout(90)
@pytest.mark.parametrize("leave", ["\x1b", "\r", "\x03"], ids=["esc", "enter", "ctrl-c"])
def test_the_resume_picker_left_unanswered_takes_no_message_for_an_id(
    model_env: FakeModelServer, repl: PtyRepl, leave: str
) -> None:
    """Esc (as Enter alone and Ctrl+C) leaves the question: the next message is the session's,
    not a session id to look for (it was lost as "no session 'second message'")."""
    model_env.script(reply(text("Noted.")), reply(text("Got it.")))
    repl.send("first message\r")
    repl.wait_for(TURN_END)
    repl.send("/clear\r")  # the picker offers the other sessions: the first is one now
    repl.wait_for(CLEARED)
    repl.send("/resume\r")
    repl.wait_for(PICK_QUESTION.strip())
    repl.wait_reading("first message")  # the picker's: the listing's last line is before it
    repl.send(leave)
    repl.wait_for(NOT_PICKED)
    repl.wait_reading(NOT_PICKED)
    repl.send("second message\r")
    repl.wait_for(TURN_END, 2)
    assert "no session" not in repl.screen
    said = [
        [block["text"] for block in request.messages()[-1]["content"]]
        for request in model_env.requests
    ]
    assert said == [["first message"], ["second message"]]
