"""Skills whose front matter names `paths`: as Claude Code's conditional skills, the model is
offered one only once it has read or edited a file its globs match (relative to the directory
tether started in, matched as `.claude/rules` globs are); until then it is neither listed nor
loadable, and a reminder names it with the result of the read that matched."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _skill(workspace: Path, name: str, front: str, body: str) -> None:
    path = workspace / ".claude" / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\n{front}\n---\n{body}\n")


@pytest.mark.usefixtures("trusted_workspace")
def test_a_skill_with_paths_is_offered_after_a_read_of_a_file_it_matches(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _skill(
        workspace,
        "react-style",
        "name: react-style\ndescription: How this project writes React components.\n"
        "paths: web/**/*.{ts, tsx}",
        "REACT-STYLE-BODY",
    )
    _skill(
        workspace,
        "sql-style",
        "description: How to write migrations.\npaths:\n  - migrations/**",
        "SQL-STYLE-BODY",
    )
    _skill(workspace, "always", "description: For any task at all.", "ALWAYS-BODY")
    (workspace / "web" / "app").mkdir(parents=True)
    (workspace / "web" / "app" / "page.tsx").write_text("export {}\n")
    (workspace / "README.md").write_text("readme\n")
    fake_model.script(
        reply(tool_use("Skill", skill="react-style")),  # not offered yet
        reply(tool_use("Read", file_path="README.md")),
        reply(tool_use("Read", file_path="web/app/page.tsx")),
        reply(tool_use("Skill", skill="react-style")),
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr

    first, refused, after_readme, after_page, loaded = fake_model.requests
    system = str(first.body["system"])
    assert "- always: For any task at all." in system
    assert "react-style" not in system
    assert "sql-style" not in system
    refusal = refused.tool_results()[0]
    assert refusal == (
        "Error: The skill 'react-style' is for files matching web/**/*.{ts, tsx}: it is offered "
        "once such a file is read or edited. Available skills: always, code-review, "
        "systematic-debugging."
    )
    assert "react-style" not in json.dumps(after_readme.messages()[-1]["content"])
    told = json.dumps(after_page.messages()[-1]["content"])
    assert "- react-style: How this project writes React components." in told
    assert "sql-style" not in told
    assert "REACT-STYLE-BODY" in loaded.tool_results()[0]
    assert str(loaded.body).count("How this project writes React components.") == 1  # once


@pytest.mark.usefixtures("trusted_workspace")
def test_skill_paths_are_relative_to_where_tether_started_and_bad_ones_are_said(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _skill(workspace, "docs", "description: Docs style guide.\npaths: '*.md'", "DOCS-BODY")
    _skill(workspace, "odd", "description: Odd paths.\npaths: {a: b}", "ODD-BODY")
    outside = workspace.parent / "elsewhere.md"
    outside.write_text("x\n")
    fake_model.script(
        reply(tool_use("Read", file_path=str(outside))),  # outside: activates nothing
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    first, after_outside = fake_model.requests
    assert "- odd: Odd paths." in str(first.body["system"])  # offered from the start
    assert "docs" not in json.dumps(after_outside.messages()[-1]["content"])
    assert (
        f"skill {workspace / '.claude' / 'skills' / 'odd' / 'SKILL.md'}: `paths` is a dict, "
        "not globs: the skill is offered whatever files are touched"
    ) in result.stderr


@pytest.mark.usefixtures("trusted_workspace")
def test_the_init_line_leaves_out_a_skill_waiting_for_its_paths(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """As Claude Code's init line: neither in `skills` nor in `slash_commands` yet."""
    _skill(workspace, "react-style", "description: React.\npaths: web/**", "BODY")
    _skill(workspace, "always", "description: For any task at all.", "ALWAYS-BODY")
    fake_model.script(reply(text("done")))
    result = tether("-p", "go", "--output-format", "stream-json", "--verbose")
    assert result.exit_code == 0, result.stderr
    init = json.loads(result.stdout.splitlines()[0])
    assert init["subtype"] == "init"
    assert "always" in init["skills"]
    assert "always" in init["slash_commands"]
    assert "react-style" not in init["skills"]
    assert "react-style" not in init["slash_commands"]


@pytest.mark.usefixtures("trusted_workspace")
def test_a_subagents_read_activates_a_skill_for_the_session(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """As in Claude Code, where activated skills are the process's whichever agent read the
    file: the main agent (the one with the Skill tool) is told with the Task result."""
    _skill(workspace, "react-style", "description: How we write React.\npaths: web/**", "BODY-R")
    (workspace / "web").mkdir()
    (workspace / "web" / "page.tsx").write_text("export {}\n")
    fake_model.script(
        reply(
            tool_use("Task", description="look", prompt="read the page", subagent_type="Explore")
        ),
        reply(tool_use("Read", file_path="web/page.tsx")),  # the subagent's
        reply(text("It exports nothing.")),
        reply(tool_use("Skill", skill="react-style")),
        reply(text("done")),
    )
    result = tether("-p", "go")
    assert result.exit_code == 0, result.stderr
    _, subagent_read, subagent_done, after_task, loaded = fake_model.requests
    assert "react-style" not in json.dumps(subagent_read.body)
    told = json.dumps(after_task.messages()[-1]["content"])
    assert "It exports nothing." in told
    assert "- react-style: How we write React." in told
    assert "BODY-R" in loaded.tool_results()[0]
    assert "react-style" not in json.dumps(subagent_done.messages()[-1]["content"])


@pytest.mark.usefixtures("trusted_workspace")
def test_a_skill_waiting_for_its_paths_is_not_expanded_as_a_command(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """`-p /name` names no command while the skill waits: the prompt goes as typed with the
    note any `/word` that names nothing gets (as Claude Code: the command did not run)."""
    _skill(workspace, "react-style", "description: How we write React.\npaths: web/**", "BODY-R")
    fake_model.script(reply(text("done")))
    result = tether("-p", "/react-style now")
    assert result.exit_code == 0, result.stderr
    [request] = fake_model.requests
    said = request.last_user_text()
    assert said.startswith("/react-style now\n"), said
    assert "no command with that name is available in this session, so it did not run" in said
    assert "BODY-R" not in said
