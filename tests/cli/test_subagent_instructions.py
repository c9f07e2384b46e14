"""A subagent's reads bring a subdirectory's CLAUDE.md and the `.claude/rules` whose `paths`
match into the subagent's own context, as Claude Code does (its requests, run on the fake
server, show them after the subagent's Read, not in its caller's); what the subagent was told,
its caller is told again when it reads there itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, Turn, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def project(workspace: Path) -> Path:
    (workspace / "CLAUDE.md").write_text("Root rules.\n")
    package = workspace / "pkg" / "inner"
    package.mkdir(parents=True)
    (workspace / "pkg" / "CLAUDE.md").write_text("Package rules: no globals.\n")
    (package / "a.py").write_text("a = 1\n")
    rules = workspace / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "python.md").write_text('---\npaths:\n  - "pkg/**/*.py"\n---\nPython rule: type it.\n')
    (rules / "docs.md").write_text('---\npaths: ["docs/**"]\n---\nDocs rule: short lines.\n')
    return package / "a.py"


def task(prompt: str) -> Turn:
    return reply(
        tool_use("Task", description="look", prompt=prompt, subagent_type="general-purpose")
    )


@pytest.mark.usefixtures("trusted_workspace")
def test_a_subagents_read_tells_it_the_directorys_claude_md_and_matching_rules(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    source = project(workspace)
    fake_model.script(
        task("Read pkg a.py"),
        reply(tool_use("Read", file_path=str(source))),  # the subagent's read
        reply(text("a is 1")),  # the subagent's answer
        reply(tool_use("Read", file_path=str(source))),  # then the main agent's own
        reply(text("done")),
    )
    result = tether("-p", "what is a?")
    assert result.exit_code == 0, result.stderr

    _, sub_first, sub_after_read, main_after_task, main_after_read = fake_model.requests
    assert "Read pkg a.py" in str(sub_first.messages()[0]["content"])
    assert "no globals" not in str(sub_first.body)
    told = str(sub_after_read.messages()[-1]["content"])
    assert "Contents of pkg/CLAUDE.md" in told
    assert "Package rules: no globals." in told
    assert "Contents of .claude/rules/python.md" in told
    assert "Python rule: type it." in told
    assert "short lines" not in str(sub_after_read.body)  # a rule whose paths it did not touch
    # Into the subagent's context only: its caller is told nothing of the subagent's reads...
    assert "no globals" not in str(main_after_task.body)
    assert "type it" not in str(main_after_task.body)
    # ...and is told them itself when it reads there, once.
    mine = str(main_after_read.messages()[-1]["content"])
    assert "Package rules: no globals." in mine
    assert "Python rule: type it." in mine
    assert str(main_after_read.body).count("no globals") == 1


@pytest.mark.usefixtures("trusted_workspace")
def test_each_subagent_is_told_for_itself(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    source = project(workspace)
    fake_model.script(
        reply(tool_use("Read", file_path=str(source))),  # the main agent reads there first
        task("first look"),
        reply(tool_use("Read", file_path=str(source))),
        reply(text("first")),
        task("second look"),
        reply(tool_use("Read", file_path=str(source))),
        reply(text("second")),
        reply(text("done")),
    )
    result = tether("-p", "look twice")
    assert result.exit_code == 0, result.stderr

    requests = fake_model.requests
    assert len(requests) == 8
    for after_read in (requests[1], requests[3], requests[6]):  # main, first and second subagent
        told = str(after_read.messages()[-1]["content"])
        assert "Package rules: no globals." in told
        assert "Python rule: type it." in told
        assert str(after_read.body).count("no globals") == 1


def test_an_untrusted_workspaces_subdirectory_claude_md_stays_out_of_a_subagent(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    source = project(workspace)
    fake_model.script(
        task("Read pkg a.py"),
        reply(tool_use("Read", file_path=str(source))),
        reply(text("a is 1")),
        reply(text("done")),
    )
    result = tether("-p", "what is a?")
    assert result.exit_code == 0, result.stderr
    # As for the main agent: a subdirectory's CLAUDE.md only in a trusted workspace.
    assert "no globals" not in str(fake_model.requests[2].body)
