from __future__ import annotations

from pathlib import Path

import pytest

from tether.protocol import ToolError
from tether.skills import Skill, SkillError, load_skill_body

from .conftest import write_skill


def make_skill(tmp_path: Path, body: str) -> Skill:
    path = write_skill(tmp_path, "demo", f"---\nname: demo\ndescription: D.\n---\n\n{body}")
    return Skill("demo", "D.", path, "project", ())


def header(skill: Skill) -> str:
    return (
        'The skill "demo" is loaded; follow its instructions below.\n'
        f"Its directory is {skill.path.parent}: files it mentions by relative path "
        "(scripts/, reference.md...) are there; Read them or run them from there when needed.\n\n"
    )


def test_body_without_front_matter_and_directory_named(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "Run scripts/check.sh.\n")

    assert load_skill_body(skill) == header(skill) + "Run scripts/check.sh.\n"


def test_arguments_placeholder_is_replaced(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "Fix issue $ARGUMENTS, then close $ARGUMENTS.\n")

    assert load_skill_body(skill, " 123 ") == header(skill) + "Fix issue 123, then close 123.\n"


def test_arguments_placeholder_without_args_is_emptied(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "Focus: $ARGUMENTS\n")

    assert load_skill_body(skill) == header(skill) + "Focus: \n"


def test_arguments_are_appended_without_placeholder(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "Review the change.\n")

    assert load_skill_body(skill, "HEAD~2..HEAD") == (
        header(skill) + "Review the change.\n\nARGUMENTS: HEAD~2..HEAD\n"
    )


def test_skill_dir_placeholder_is_replaced(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "Run ${CLAUDE_SKILL_DIR}/scripts/x.sh\n")

    assert load_skill_body(skill) == header(skill) + f"Run {skill.path.parent}/scripts/x.sh\n"


def test_missing_file_raises_a_tool_error(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "x")
    skill.path.unlink()

    with pytest.raises(SkillError, match=r"Cannot read the skill 'demo' at .*SKILL\.md") as info:
        load_skill_body(skill)
    assert isinstance(info.value, ToolError)


def test_file_broken_since_discovery_raises(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "x")
    skill.path.write_text("---\nname: x\nthe front matter is never closed\n")

    with pytest.raises(SkillError, match="is broken: the front matter is not closed"):
        load_skill_body(skill)


def test_a_skill_takes_its_arguments_by_position_from_zero(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "Port $0 to $ARGUMENTS[1]; then $2. All: $ARGUMENTS")
    assert load_skill_body(skill, "'the parser' rust") == (
        header(skill) + "Port the parser to rust; then $2. All: 'the parser' rust\n"
    )
