from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tether.skills import (
    SKILL_TOOL_DESCRIPTION,
    SkillCatalog,
    SkillError,
    discover_skills,
    load_skill_body,
    run_skill,
)
from tether.skills.skill_input import SkillInput

from .conftest import skill_text, write_skill


@pytest.fixture
def catalog(workspace: Path, home: Path) -> SkillCatalog:
    write_skill(
        workspace / ".claude/skills",
        "deploy",
        "---\nname: deploy\ndescription: Ship it.\nallowed-tools: Bash(make deploy:*)\n---\n"
        "Deploy $ARGUMENTS.\n",
    )
    write_skill(workspace / ".claude/skills", "lint", skill_text("lint"))
    write_skill(workspace / ".claude/skills", "broken", "---\nname: broken\n")
    return discover_skills(workspace, home=home, include_builtin=False)


def test_runs_a_skill_and_grants_its_tools(catalog: SkillCatalog) -> None:
    text, allowed = run_skill(catalog, SkillInput(skill="deploy", args="staging"))

    skill = catalog.get("deploy")
    assert skill is not None
    assert (text, allowed) == (load_skill_body(skill, "staging"), ("Bash(make deploy:*)",))
    assert text.endswith("Deploy staging.\n")


def test_unknown_name_lists_available(catalog: SkillCatalog) -> None:
    with pytest.raises(SkillError) as info:
        run_skill(catalog, SkillInput(skill="nope"))
    assert str(info.value) == "There is no skill called 'nope'. Available skills: deploy, lint."


def test_unusable_name_gives_the_reason(catalog: SkillCatalog, workspace: Path) -> None:
    with pytest.raises(SkillError) as info:
        run_skill(catalog, SkillInput(skill="broken"))
    path = workspace / ".claude/skills/broken/SKILL.md"
    assert str(info.value) == (
        f"The skill 'broken' cannot be used ({path}: the front matter is not closed by a '---' "
        "line). Available skills: deploy, lint."
    )


@pytest.mark.parametrize("name", ["../deploy", "deploy/../lint", "/etc", "..", "plug:../x", ""])
def test_malformed_names_are_refused(catalog: SkillCatalog, name: str) -> None:
    with pytest.raises(SkillError) as info:
        run_skill(catalog, SkillInput(skill=name))
    assert str(info.value) == (
        f"{name!r} is not a skill name: names are letters, digits, '_', '.' and '-'. "
        "Available skills: deploy, lint."
    )


def test_no_skills_at_all(workspace: Path, home: Path) -> None:
    empty = discover_skills(workspace, home=home, include_builtin=False)
    with pytest.raises(
        SkillError, match=r"^There is no skill called 'x'\. No skills are available\.$"
    ):
        run_skill(empty, SkillInput(skill="x"))


def test_input_forbids_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        SkillInput.model_validate({"skill": "lint", "extra": 1})
    assert SkillInput.model_validate({"skill": "lint"}) == SkillInput(skill="lint", args=None)


def test_description_tells_when_to_call() -> None:
    assert "BEFORE starting" in SKILL_TOOL_DESCRIPTION
    assert set(SkillInput.model_json_schema()["properties"]) == {"skill", "args"}
