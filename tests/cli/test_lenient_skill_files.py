"""Skill files as Claude Code loads them (the bundled CLI lists both of these, on the fake
server): a SKILL.md without front matter is named by its directory, and one without a
description is described by its first line, a heading's `#`s left out. Before, both were
refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def test_skills_without_front_matter_or_description_are_offered_and_load(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    skills = trusted_workspace / ".claude" / "skills"
    (skills / "release-notes").mkdir(parents=True)
    (skills / "release-notes" / "SKILL.md").write_text(
        "# Write release notes\n\nGroup the changes by area. NOTES-BODY\n"
    )
    (skills / "triage").mkdir()
    (skills / "triage" / "SKILL.md").write_text(
        "---\nname: triage\n---\n\n## Triage a bug report\n\nReproduce first. TRIAGE-BODY\n"
    )
    fake_model.script(
        reply(tool_use("Skill", skill="release-notes")),
        reply(tool_use("Skill", skill="triage")),
        reply(text("done")),
    )
    result = tether("-p", "notes and triage")
    assert result.exit_code == 0, result.stderr

    first, after_notes, after_triage = fake_model.requests
    system = str(first.body["system"])
    assert "- release-notes: Write release notes" in system
    assert "- triage: Triage a bug report" in system
    assert "NOTES-BODY" in after_notes.tool_results()[0]
    assert "TRIAGE-BODY" in after_triage.tool_results()[0]
    assert "first line is used: 'Triage a bug report'" in result.stderr  # said, not refused
