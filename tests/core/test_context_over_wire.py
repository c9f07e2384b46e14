"""What the model sees of the plan and the project's instructions, over the wire."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

PLAN = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
]
DONE = [{**item, "status": "completed"} for item in PLAN]


def _texts(message: dict[str, object]) -> list[str]:
    content = message["content"]
    assert isinstance(content, list)
    return [str(b["text"]) for b in content if isinstance(b, dict) and b.get("type") == "text"]


def test_plan_reminder_while_items_are_open_and_not_after(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(
        reply(tool_use("TodoWrite", todos=PLAN)),
        reply(tool_use("Bash", command="true")),
        reply(tool_use("TodoWrite", todos=DONE)),
        reply(text("done")),
    )
    result = tether("-p", "fix it")
    assert result.exit_code == 0, result.stderr
    reminders = [
        [t for t in _texts(r.messages()[-1]) if "TodoWrite" in t] for r in fake_model.requests[1:]
    ]
    assert [len(r) for r in reminders] == [1, 1, 0]
    assert "◐ Fix the bug" in reminders[0][0]
    assert "system-reminder" in reminders[0][0]


def test_project_instructions_reach_the_system_prompt(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("Always answer tersely.\n")
    monkeypatch.setenv("HOME", str(home))
    (workspace / "CLAUDE.md").write_text("Run tests with `make check`.\n@docs/style.md\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "style.md").write_text("Use tabs.\n")
    (workspace / "AGENTS.md").write_text("Never touch vendor/.\n")
    fake_model.script(reply(text("ok")))
    tether("-p", "hi")
    system = fake_model.requests[0].system()
    order = [system.index(s) for s in ("tersely", "make check", "Use tabs", "vendor/")]
    assert order == sorted(order)


def _skill(workspace: Path, name: str, front: str, body: str) -> None:
    folder = workspace / ".claude" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{front}\n---\n{body}\n")


def test_skill_body_arrives_only_after_the_skill_call(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _skill(workspace, "greet", "name: greet\ndescription: Greets people warmly.", "BODY-MARKER")
    fake_model.script(reply(tool_use("Skill", skill="greet")), reply(text("hello!")))
    result = tether("-p", "greet me")
    assert result.exit_code == 0, result.stderr
    first, second = fake_model.requests
    assert "greet: Greets people warmly." in first.system()
    assert "BODY-MARKER" not in str(first.body)
    assert "BODY-MARKER" in second.tool_results()[0]


@pytest.mark.usefixtures("trusted_workspace")
def test_skill_grants_its_tools_for_the_turn_only(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _skill(
        workspace,
        "stamp",
        "description: Stamps files.\nallowed-tools: Bash(touch *)",
        "Touch the file.",
    )
    fake_model.script(
        reply(tool_use("Skill", skill="stamp")),
        reply(tool_use("Bash", command="touch first")),
        reply(text("stamped")),
        reply(tool_use("Bash", command="touch second")),
        reply(text("tried")),
    )
    tether("-p", "stamp it", "--permission-mode", "default")
    tether("-p", "stamp again", "--permission-mode", "default")
    assert (workspace / "first").exists()
    assert not (workspace / "second").exists()


def test_unusable_skill_is_reported(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # Front matter strict YAML rejects is read line by line, as Claude Code reads it; a skill
    # that says nothing of what it does is of no use to the model.
    _skill(workspace, "broken", "name: broken\nallowed-tools: Read", "body")
    fake_model.script(reply(text("ok")))
    result = tether("-p", "hi")
    assert "skill" in result.stderr
    assert "broken" in result.stderr
    assert "unusable" in result.stderr
