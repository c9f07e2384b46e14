from __future__ import annotations

from pathlib import Path

import pytest

from tether.skills import Skill, SkillCatalog, SkillSource


def catalog_of(*entries: tuple[str, str, SkillSource]) -> SkillCatalog:
    skills = tuple(
        Skill(name, description, Path(f"/skills/{name}/SKILL.md"), source, ())
        for name, description, source in sorted(entries)
    )
    return SkillCatalog(skills, ())


def test_empty_catalog_has_no_section() -> None:
    assert SkillCatalog((), ()).prompt_section() == ""


def test_lists_names_and_descriptions_sorted() -> None:
    catalog = catalog_of(
        ("zeta", "Last one.", "project"),
        ("alpha", "First one,\n  on two lines.", "builtin"),
    )

    assert catalog.prompt_section() == (
        "Skills you can load with the Skill tool:\n"
        "- alpha: First one, on two lines.\n"
        "- zeta: Last one."
    )


def test_over_budget_shortens_descriptions_first() -> None:
    catalog = catalog_of(
        ("alpha", "a" * 300, "project"),
        ("beta", "b" * 300, "project"),
    )

    section = catalog.prompt_section(budget_chars=400)

    assert len(section) <= 400
    lines = section.splitlines()
    assert lines[0] == "Skills you can load with the Skill tool:"
    assert lines[1].startswith("- alpha: aaaa")
    assert lines[1].endswith("…")
    assert lines[2].startswith("- beta: bbbb")
    assert lines[3] == "(Some descriptions are shortened.)"
    # As much description as fits: one more character would break the budget.
    assert len(section) > 400 - 2


def test_far_over_budget_omits_builtin_then_user_entries_with_a_note() -> None:
    catalog = catalog_of(
        ("builtin-one", "d" * 200, "builtin"),
        ("project-one", "p" * 200, "project"),
        ("user-one", "u" * 200, "user"),
    )

    section = catalog.prompt_section(budget_chars=230)

    assert len(section) <= 230
    assert section == (
        "Skills you can load with the Skill tool:\n"
        f"- project-one: {'p' * 39}…\n"
        f"- user-one: {'u' * 39}…\n"
        "(Some descriptions are shortened.)\n"
        "(1 more skill not listed, for lack of room.)"
    )


@pytest.mark.parametrize("budget", [0, 10, 60, 120, 200, 1000, 4000])
def test_never_exceeds_the_budget(budget: int) -> None:
    entries: list[tuple[str, str, SkillSource]] = [
        (f"skill-{i:02d}", "x" * 150, "user") for i in range(20)
    ]
    catalog = catalog_of(*entries)

    assert len(catalog.prompt_section(budget_chars=budget)) <= budget
