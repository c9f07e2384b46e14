"""Output styles as Claude Code has them: `outputStyle` names a built-in style or a file of
`.claude/output-styles/` (project) or `~/.claude/output-styles/` (user); the style goes at the
end of the system prompt as `# Output Style: NAME` and its text, the prompt's opening says the
model answers in that style, and a custom style without `keep-coding-instructions: true` leaves
out the coding instructions. A name that matches no style is said once, with the known ones."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.core.context import BASE_PROMPT
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

PIRATE = """\
---
name: Pirate
description: talk like a pirate
keep-coding-instructions: true
---
OUTPUT-STYLE-PIRATE-MARKER: answer like a pirate.
"""


@pytest.fixture(autouse=True)
def _user_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("HOME", str(home))


def _settings(workspace: Path, **values: object) -> None:
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def _style(folder: Path, name: str, content: str) -> None:
    (folder / ".claude" / "output-styles").mkdir(parents=True, exist_ok=True)
    (folder / ".claude" / "output-styles" / name).write_text(content)


def _system(fake_model: FakeModelServer, tether: Run) -> tuple[str, str]:
    fake_model.script(reply(text("ok")))
    result = tether("-p", "hi")
    assert result.exit_code == 0, result.stderr
    return fake_model.requests[-1].system(), result.stderr


def test_a_project_style_goes_at_the_end_of_the_prompt(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _style(workspace, "pirate.md", PIRATE)
    _settings(workspace, outputStyle="Pirate")
    system, stderr = _system(fake_model, tether)
    assert system.rstrip().endswith(
        "# Output Style: Pirate\nOUTPUT-STYLE-PIRATE-MARKER: answer like a pirate."
    )
    assert 'according to your "Output Style"' in system.splitlines()[0]
    assert "How to work:" in system  # keep-coding-instructions: true
    assert "outputStyle" not in stderr


def test_a_user_style_named_by_its_file_leaves_out_the_coding_instructions(
    fake_model: FakeModelServer, tether: Run, workspace: Path, home: Path
) -> None:
    _style(home, "terse.md", "---\ndescription: short answers\n---\nTERSE-MARKER body\n")
    _settings(workspace, outputStyle="terse")
    system, _ = _system(fake_model, tether)
    assert "# Output Style: terse\nTERSE-MARKER body" in system
    assert "How to work:" not in system


def test_a_built_in_style_keeps_the_coding_instructions(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _settings(workspace, outputStyle="Explanatory")
    system, _ = _system(fake_model, tether)
    assert "# Output Style: Explanatory\n" in system
    assert "★ Insight" in system
    assert "How to work:" in system


def test_the_default_style_changes_nothing(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _settings(workspace, outputStyle="default")
    styled, stderr = _system(fake_model, tether)
    assert styled.startswith(BASE_PROMPT)
    assert "Output Style" not in styled
    assert "outputStyle" not in stderr


def test_an_unknown_style_is_a_warning_naming_the_known_ones(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _style(workspace, "pirate.md", PIRATE)
    _settings(workspace, outputStyle="Nope")
    system, stderr = _system(fake_model, tether)
    assert "Output Style" not in system
    warnings = [line for line in stderr.splitlines() if "outputStyle" in line]
    assert warnings == [
        'tether: Setting outputStyle: no output style is named "Nope" (known: default, '
        "Explanatory, Learning, Pirate); using the default."
    ], stderr


def test_switching_style_with_a_damaged_local_settings_file_says_so_and_keeps_it(
    tmp_path: Path,
) -> None:
    from tether.cli.session_views import output_style

    local = tmp_path / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text("[1, 2]")
    said = output_style("Explanatory", tmp_path, tmp_path / "home").plain
    assert said == f"✗ cannot update {local}: it is not a JSON object"
    assert local.read_text() == "[1, 2]"  # nothing lost
