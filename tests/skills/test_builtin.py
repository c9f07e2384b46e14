from __future__ import annotations

from pathlib import Path

from tether.skills import SkillCatalog, discover_skills, load_skill_body
from tether.skills.discovery import BUILTIN_SKILL_DIR


def test_shipped_skills_are_valid(tmp_path: Path) -> None:
    catalog = discover_skills(tmp_path, home=tmp_path)

    assert isinstance(catalog, SkillCatalog)
    assert catalog.unusable == ()
    assert [(s.name, s.source, s.path) for s in catalog.skills] == [
        ("code-review", "builtin", BUILTIN_SKILL_DIR / "code-review/SKILL.md"),
        ("systematic-debugging", "builtin", BUILTIN_SKILL_DIR / "systematic-debugging/SKILL.md"),
    ]
    review = catalog.get("code-review")
    assert review is not None
    assert review.allowed_tools == (
        "Read",
        "Grep",
        "Glob",
        "Bash(git status:*)",
        "Bash(git diff:*)",
        "Bash(git log:*)",
        "Bash(git show:*)",
    )
    for skill in catalog.skills:
        body = load_skill_body(skill, "the arguments")
        assert body.endswith("\n\nARGUMENTS: the arguments\n")
        assert "$ARGUMENTS" not in body
        assert len(body) < 8000


def test_shipped_skills_fit_the_default_budget(tmp_path: Path) -> None:
    section = discover_skills(tmp_path, home=tmp_path).prompt_section()
    assert "Some descriptions are shortened" not in section
    assert section.count("\n- ") == 2


def test_builtin_can_be_left_out(tmp_path: Path) -> None:
    assert discover_skills(tmp_path, home=tmp_path, include_builtin=False) == SkillCatalog((), ())
