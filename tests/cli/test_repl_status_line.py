"""The `statusLine` setting run as Claude Code runs it: its command reads the session as JSON
on stdin, the first line it prints is shown under the prompt with its colours, it runs again
when the conversation changes, only in a trusted workspace; a failing or slow command is said
once and never stops the REPL. On a real terminal against the fake model server."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tether.cli.status_line import HELP, TIMEOUT_S
from tether.cli.trust_prompt import QUESTION
from tether.config.settings import sessions_home
from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use

SCRIPT = """\
import json, sys
seen = json.load(sys.stdin)
with open("runs.jsonl", "a") as runs:
    runs.write(json.dumps(seen) + "\\n")
print("\\x1b[32mSTATUS-" + seen["model"]["display_name"].replace(" ", "-") + "\\x1b[0m \\x07end")
print("SECOND-LINE-NEVER-SHOWN")
"""


def _status_line(workspace: Path, command: str, padding: int = 0) -> None:
    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    line = {"type": "command", "command": command, "padding": padding}
    settings.write_text(json.dumps({"statusLine": line}))


def _runs(workspace: Path) -> list[dict[str, object]]:
    path = workspace / "runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.timeout(90)
@pytest.mark.usefixtures("trusted_workspace")
def test_the_status_line_shows_the_commands_first_line_and_follows_the_conversation(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    (workspace / "status.py").write_text(SCRIPT)
    _status_line(workspace, f"{sys.executable} status.py", padding=2)
    model_env.script(reply(text("First answer.")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.wait_for("STATUS-")
        assert "SECOND-LINE-NEVER-SHOWN" not in repl.screen
        assert "32m" in repl.raw.split("STATUS-")[0][-20:]  # its colour kept
        assert "\x07" not in repl.raw  # other control characters are not
        before = len(_runs(workspace))
        repl.send("hello\r")
        repl.wait_for(TURN_END)
        repl.wait_until(lambda _s: len(_runs(workspace)) > before, "a run after the turn")
        repl.send("/statusline\r")
        repl.wait_for(HELP.split(",")[0])
    finally:
        repl.close()
    [listed] = list_sessions(sessions_home(os.environ), workspace.resolve())
    seen = _runs(workspace)[-1]
    assert seen["session_id"] == listed.session_id
    assert seen["transcript_path"] == str(listed.path)
    assert seen["cwd"] == str(workspace.resolve())
    assert seen["workspace"] == {
        "current_dir": str(workspace.resolve()),
        "project_dir": str(workspace.resolve()),
        "added_dirs": [],
    }
    assert seen["permission_mode"] == "default"
    assert isinstance(seen["model"], dict)
    assert set(seen["model"]) == {"id", "display_name"}
    assert seen["output_style"] == {"name": "default"}
    assert isinstance(seen["version"], str)
    assert isinstance(seen["cost"], dict)
    assert "total_cost_usd" in seen["cost"]
    window = seen["context_window"]
    assert isinstance(window, dict)
    assert set(window["current_usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    }
    assert 0 < window["used_percentage"] < 100
    assert window["used_percentage"] + window["remaining_percentage"] == pytest.approx(100)


@pytest.mark.timeout(90)
def test_an_untrusted_projects_status_line_never_runs(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    (workspace / "status.py").write_text(SCRIPT)
    _status_line(workspace, f"{sys.executable} status.py")
    model_env.script(reply(text("Answered.")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for(QUESTION)
        assert "statusLine" in repl.screen  # the trust question lists it
        repl.wait_for("then Enter")  # keys sent before the question is whole go to the prompt
        repl.send("n\r")
        repl.wait_for("> ")
        repl.send("hello\r")
        repl.wait_for(TURN_END)
    finally:
        repl.close()
    assert _runs(workspace) == []
    assert "STATUS-" not in repl.screen


@pytest.mark.timeout(120)
@pytest.mark.usefixtures("trusted_workspace")
def test_a_slow_command_is_killed_and_a_failing_one_said_once(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    # Slow: it records its id, then sleeps past the timeout; the REPL answers meanwhile.
    _status_line(
        workspace, f"echo $$ > slow.pid; exec {sys.executable} -c 'import time; time.sleep(60)'"
    )
    model_env.script(reply(text("Still here.")), reply(text("And again.")), reply(text("Third.")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.send("hello\r")
        repl.wait_for(TURN_END)
        repl.wait_for(f"took over {TIMEOUT_S:g} s: stopped")
        pid = int((workspace / "slow.pid").read_text())
        repl.wait_until(lambda _s: not _alive(pid), "the slow command killed")
        repl.wait_reading(TURN_END)
        repl.send("again\r")
        repl.wait_for(TURN_END, 2)
    finally:
        repl.close()
    assert repl.screen.count("took over") == 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"


@pytest.mark.timeout(90)
@pytest.mark.usefixtures("trusted_workspace")
def test_a_failing_command_is_said_once(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    _status_line(workspace, "echo BROKEN-STATUS >&2; exit 3")
    model_env.script(reply(text("One.")), reply(text("Two.")))
    repl = PtyRepl(workspace, anthropic_only(home))
    try:
        repl.wait_for("> ")
        repl.wait_for("statusLine command failed (exit 3): BROKEN-STATUS")
        repl.send("hello\r")
        repl.wait_for(TURN_END)
        repl.wait_reading(TURN_END)
        repl.send("again\r")
        repl.wait_for(TURN_END, 2)
        repl.wait_reading(TURN_END)
    finally:
        repl.close()
    assert repl.screen.count("BROKEN-STATUS") == 1


@pytest.mark.timeout(120)
@pytest.mark.usefixtures("trusted_workspace")
def test_the_status_line_runs_again_on_shift_tab(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """Shift+Tab (the mode changed) runs the command again, with the turn's counts."""
    (workspace / "status.py").write_text(SCRIPT)
    _status_line(workspace, f"{sys.executable} status.py")
    model_env.script(
        reply(tool_use("Write", file_path=str(workspace / "notes.txt"), content="a\nb\nc\n")),
        reply(text("Wrote it.")),
    )
    repl = PtyRepl(workspace, anthropic_only(home), "--permission-mode", "acceptEdits")
    try:
        repl.wait_for("> ")
        repl.send("write the notes\r")
        repl.wait_for("Wrote it.")
        repl.wait_until(
            lambda _s: _runs(workspace)[-1]["cost"] != _runs(workspace)[0]["cost"],
            "a run after the turn",
        )
        before = len(_runs(workspace))
        repl.send("\x1b[Z")  # Shift+Tab
        repl.wait_until(lambda _s: len(_runs(workspace)) > before, "a run after Shift+Tab")
    finally:
        repl.close()
    modes = [run["permission_mode"] for run in _runs(workspace)]
    assert modes[0] == "acceptEdits"
    assert modes[-1] == "plan", modes  # the mode Shift+Tab chose, for the script to show
    spent = _runs(workspace)[-1]["cost"]
    assert isinstance(spent, dict)
    assert (spent["total_lines_added"], spent["total_lines_removed"]) == (3, 0), spent
