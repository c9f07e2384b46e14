"""A session's title and its listing show what the user typed: the context tether adds for the
model (the agent types, hook context, a mentioned file) is neither a title nor a `>` turn."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.main import main as tether_main
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

AGENT = """---
name: code-reviewer
description: Reviews code for bugs.
tools: Read, Grep
---
You review code.
"""


def _project_with_reminders(workspace: Path) -> None:
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "code-reviewer.md").write_text(AGENT)
    hook = {"type": "command", "command": "echo HOOK-CONTEXT-7"}
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings))


def test_a_title_is_the_users_prompt_not_tethers_reminders(
    fake_model: FakeModelServer, tether: Run, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _project_with_reminders(workspace)
    fake_model.script(reply(text("looking")))
    result = tether(
        "-p", "fix the login bug TITLE-PROBE", "--output-format", "json", "--trust-workspace"
    )
    assert result.exit_code == 0, result.stderr
    session_id = result.json()["session_id"]
    sent = json.dumps(fake_model.requests[0].messages())
    assert "Available agent types" in sent
    assert "HOOK-CONTEXT-7" in sent

    cwd = ["--cwd", str(workspace)]
    assert tether_main(["sessions", "list", *cwd]) == 0
    listed = capsys.readouterr().out
    assert "fix the login bug TITLE-PROBE" in listed
    assert "system-reminder" not in listed

    assert tether_main(["sessions", "show", session_id, *cwd]) == 0
    shown = capsys.readouterr().out
    assert "title    fix the login bug TITLE-PROBE" in shown
    assert "> fix the login bug TITLE-PROBE" in shown
    assert "> <system-reminder>" not in shown
    assert "HOOK-CONTEXT-7" not in shown
    assert "Available agent types" not in shown
    assert "[added by tether for the model:" in shown


def test_a_session_started_with_a_command_or_a_skill_is_titled_by_what_was_typed(
    fake_model: FakeModelServer, tether: Run, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As Claude Code: `/name args`, not the body it expands to."""
    commands = workspace / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("# Review BODY-OF-COMMAND\nReview $ARGUMENTS carefully.\n")
    skill = workspace / ".claude" / "skills" / "argskill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: argskill\ndescription: Takes arguments.\n---\nBODY-OF-SKILL $ARGUMENTS\n"
    )
    fake_model.script(reply(text("reviewed")), reply(text("skilled")))
    for typed in ("/review src/app.py", "/argskill foo bar"):
        result = tether("-p", typed, "--trust-workspace")
        assert result.exit_code == 0, result.stderr
    sent = json.dumps([r.messages() for r in fake_model.requests])
    assert "BODY-OF-COMMAND" in sent
    assert "BODY-OF-SKILL foo bar" in sent

    assert tether_main(["sessions", "list", "--cwd", str(workspace)]) == 0
    listed = capsys.readouterr().out
    assert "/review src/app.py" in listed
    assert "/argskill foo bar" in listed
    assert "BODY-OF" not in listed
    assert "The user ran the skill" not in listed
