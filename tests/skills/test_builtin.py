from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from tether.skills import SkillCatalog, discover_skills, load_skill_body
from tether.skills.discovery import BUILTIN_SKILL_DIR
from tether.skills.frontmatter import KNOWN_FRONT_MATTER, front_matter_key, split_front_matter


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


def test_known_front_matter_is_that_of_the_shipped_skills() -> None:
    # Start-up looks tether's own skills up in this table instead of importing the YAML
    # parser: it must say what the parser says of each of them, and nothing else.
    expected: dict[str, Any] = {}
    for path in sorted(BUILTIN_SKILL_DIR.glob("*/SKILL.md")):
        source, _ = split_front_matter(path.read_text(encoding="utf-8"))
        expected[front_matter_key(source)] = yaml.safe_load(source)
    table = json.loads(KNOWN_FRONT_MATTER.read_text(encoding="utf-8"))
    assert table == expected, (
        f"{KNOWN_FRONT_MATTER.name} is out of date; write this to it:\n"
        + json.dumps(expected, indent=2, ensure_ascii=False)
    )


def test_the_shipped_skills_are_read_without_the_yaml_parser(tmp_path: Path) -> None:
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tether.skills import discover_skills, load_skill_body\n"
        f"catalog = discover_skills(Path({str(tmp_path)!r}), home=Path({str(tmp_path)!r}))\n"
        "load_skill_body(catalog.skills[0], '')\n"
        "print([s.name for s in catalog.skills], 'yaml' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert done.stdout == "['code-review', 'systematic-debugging'] False\n"


def test_a_skill_of_its_own_is_still_parsed_as_yaml(tmp_path: Path) -> None:
    skill = tmp_path / ".claude" / "skills" / "notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: notes\ndescription: >-\n  Take notes.\n  Briefly.\n---\nWrite them.\n"
    )
    catalog = discover_skills(tmp_path, home=tmp_path)
    notes = catalog.get("notes")
    assert notes is not None
    assert notes.description == "Take notes. Briefly."
