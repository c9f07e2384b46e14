"""Custom and plugin commands run by the model through the Skill tool, as Claude Code's Skill
tool runs them (those with a description, not `disable-model-invocation`), listed with the
skills; and `/` at the REPL's prompt completing them with the built-in commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_plugins import make_plugin
from tests.cli.test_repl_commands import anthropic_only
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult


@pytest.fixture(autouse=True)
def user_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    return home


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")


def test_the_skill_tool_runs_plugin_and_project_commands(
    fake_model: FakeModelServer,
    tether: Callable[..., CliResult],
    trusted_workspace: Path,
    tmp_path: Path,
) -> None:
    plugin = make_plugin(tmp_path / "plugins" / "tidy")
    commands = trusted_workspace / ".claude/commands"
    _write(commands / "Release.notes.md", "---\ndescription: Draft release notes\n---\nDraft $0.\n")
    _write(
        commands / "deploy.md",
        "---\ndescription: Deploy\ndisable-model-invocation: true\n---\nDeploy now.\n",
    )
    fake_model.script(
        reply(tool_use("Skill", skill="tidy:sweep", args="the attic")),
        reply(tool_use("Skill", skill="Release.notes", args="v2")),
        reply(tool_use("Skill", skill="deploy")),
        reply(text("Done.")),
    )
    result = tether("-p", "tidy up", "--plugin-dir", str(plugin))
    assert result.exit_code == 0, result.stderr
    first = fake_model.requests[0]
    assert "Skill" in first.tool_names()
    system = first.system()
    assert "- tidy:sweep: Sweep a directory" in system
    assert "- Release.notes: Draft release notes" in system
    assert "deploy" not in system  # the user runs it; the model is not offered it
    assert "tidy:deep:dust" not in system  # no description: the model is not offered it
    assert fake_model.requests[1].tool_results()[0].startswith("Sweep the attic now.")
    assert fake_model.requests[2].tool_results()[0].startswith("Draft v2.")
    assert fake_model.requests[3].tool_result_errors() == [True]
    assert "There is no skill called 'deploy'" in fake_model.requests[3].tool_results()[0]


@pytest.mark.timeout(90)
def test_slash_completes_built_in_custom_and_plugin_commands(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    plugin = make_plugin(tmp_path / "plugins" / "tidy")
    _write(
        workspace / ".claude/commands/tally.md",
        "---\ndescription: Count things\nargument-hint: <what>\n---\nCount $0.\n",
    )
    env = anthropic_only(home)
    repl = PtyRepl(workspace, env, "--plugin-dir", str(plugin), "--trust-workspace")
    try:
        repl.wait_for("> ")
        repl.send("/ini")
        repl.wait_for("have the model study the repository")  # the menu, with what it does
        repl.send("\x15")  # Ctrl+U: the line emptied
        repl.send("/help\r")  # the session is built once /help answers
        repl.wait_for("Custom commands")
        repl.send("/ta")
        repl.wait_shown("/tally")
        repl.wait_shown("<what>  Count things")  # its hint and description, not "command"
        repl.send("\x15/tidy:sw")
        repl.wait_shown("/tidy:sweep")
    finally:
        repl.close()
