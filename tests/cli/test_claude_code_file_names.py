"""Agent, skill and command files as the bundled Claude Code CLI loads them on the fake server:
a front matter key with nothing after it (`model:`, `tools: ""`, `description:`) is as if it
were absent; a skill is called by its directory's name, kebab-case or not (`Upper_Case`), and
whatever its `name` says (Claude Code lists `dirname-a (other-name)` and runs `/dirname-a`).
Before, the agent and the `Upper_Case` skill were refused, and `dirname-a` was `other-name`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def write(root: Path, relative: str, content: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


@pytest.mark.usefixtures("trusted_workspace")
def test_an_agent_with_empty_keys_inherits_the_model_and_has_every_tool(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # Not YAML (the `: ` in the description): read as `key: value` lines, `model:` is "".
    write(
        workspace,
        ".claude/agents/weird.md",
        "---\nname: weird-agent\ndescription: Use when: a) x and: colons\ntools: ''\n"
        "model:\ncolor:\n---\nWEIRD-PROMPT\n",
    )
    fake_model.script(
        reply(tool_use("Task", description="d", prompt="go", subagent_type="weird-agent")),
        reply(text("sub done")),
        reply(text("done")),
    )
    result = tether("-p", "delegate")
    assert result.exit_code == 0, result.stderr

    main, sub, after = fake_model.requests
    assert "WEIRD-PROMPT" in sub.system()
    assert sub.body["model"] == main.body["model"]
    assert {"Read", "Bash", "Edit"} <= set(sub.tool_names())
    assert "sub done" in after.tool_results()[0]


@pytest.mark.usefixtures("trusted_workspace")
def test_skills_are_called_by_their_directory_names(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    write(workspace, ".claude/skills/Upper_Case/SKILL.md", "---\ndescription: U.\n---\nUPPER\n")
    write(
        workspace,
        ".claude/skills/dirname-a/SKILL.md",
        "---\nname: other-name\ndescription: Mismatched.\n---\nMISMATCH-BODY $ARGUMENTS\n",
    )
    fake_model.script(
        reply(tool_use("Skill", skill="dirname-a")),
        reply(text("done")),
        reply(text("upper done")),
    )
    result = tether("-p", "/dirname-a go")
    assert result.exit_code == 0, result.stderr
    first, after_skill = fake_model.requests
    assert "MISMATCH-BODY" in first.last_user_text()
    assert "- dirname-a: Mismatched." in first.system()
    assert "other-name:" not in first.system()
    assert "MISMATCH-BODY" in after_skill.tool_results()[0]
    assert "it is called 'dirname-a', as Claude Code calls it" in result.stderr

    result = tether("-p", "/Upper_Case now")
    assert result.exit_code == 0, result.stderr
    assert "UPPER" in fake_model.requests[-1].last_user_text()


@pytest.mark.usefixtures("trusted_workspace")
def test_a_command_with_empty_keys_runs_on_the_sessions_model(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    write(
        workspace,
        ".claude/commands/hint.md",
        "---\nargument-hint:\ndescription:\nmodel:\nallowed-tools:\n---\nCMD-BODY $ARGUMENTS\n",
    )
    fake_model.script(reply(text("plain")), reply(text("done")))
    assert tether("-p", "hello").exit_code == 0
    result = tether("-p", "/hint abc")
    assert result.exit_code == 0, result.stderr
    plain, command = fake_model.requests
    assert "CMD-BODY abc" in command.last_user_text()
    assert command.body["model"] == plain.body["model"]
