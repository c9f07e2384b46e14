from __future__ import annotations

from pathlib import Path

import pytest

from tether.skills import Skill, SkillCatalog, UnusableSkill, discover_skills
from tether.skills.discovery import BUILTIN_SKILL_DIR

from .conftest import skill_text, write_skill


def test_finds_skills_in_every_location(workspace: Path, home: Path) -> None:
    tether_dir = write_skill(workspace / ".tether/skills", "alpha", skill_text("alpha", "A."))
    claude_dir = write_skill(workspace / ".claude/skills", "beta", skill_text("beta", "B."))
    agents_dir = write_skill(workspace / ".agents/skills", "gamma", skill_text("gamma", "C."))
    user = write_skill(home / ".claude/skills", "delta", skill_text("delta", "D."))

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert catalog == SkillCatalog(
        skills=(
            Skill("alpha", "A.", tether_dir, "project", ()),
            Skill("beta", "B.", claude_dir, "project", ()),
            Skill("delta", "D.", user, "user", ()),
            Skill("gamma", "C.", agents_dir, "project", ()),
        ),
        unusable=(),
    )


def test_no_skill_directories_gives_an_empty_catalog(workspace: Path, home: Path) -> None:
    assert discover_skills(workspace, home=home, include_builtin=False) == SkillCatalog((), ())


def test_directories_without_skill_md_and_hidden_ones_are_ignored(
    workspace: Path, home: Path
) -> None:
    (workspace / ".claude/skills/empty").mkdir(parents=True)
    write_skill(workspace / ".claude/skills", ".hidden", skill_text("hidden"))
    (workspace / ".claude/skills/README.md").write_text("notes")

    assert discover_skills(workspace, home=home, include_builtin=False) == SkillCatalog((), ())


def test_project_shadows_user_shadows_builtin(workspace: Path, home: Path) -> None:
    project = write_skill(workspace / ".claude/skills", "code-review", skill_text("code-review"))
    user = write_skill(home / ".claude/skills", "code-review", skill_text("code-review"))
    user_debug = write_skill(
        home / ".claude/skills", "systematic-debugging", skill_text("systematic-debugging")
    )

    catalog = discover_skills(workspace, home=home)

    assert [(s.name, s.source, s.path) for s in catalog.skills] == [
        ("code-review", "project", project),
        ("systematic-debugging", "user", user_debug),
    ]
    builtin_root = BUILTIN_SKILL_DIR
    assert catalog.unusable == (
        UnusableSkill(
            user, f"shadowed by the project skill of the same name at {project}", shadowed=True
        ),
        UnusableSkill(
            builtin_root / "code-review/SKILL.md",
            f"shadowed by the project skill of the same name at {project}",
            shadowed=True,
        ),
        UnusableSkill(
            builtin_root / "systematic-debugging/SKILL.md",
            f"shadowed by the user skill of the same name at {user_debug}",
            shadowed=True,
        ),
    )


def test_first_project_directory_wins(workspace: Path, home: Path) -> None:
    first = write_skill(workspace / ".tether/skills", "lint", skill_text("lint", "First."))
    second = write_skill(workspace / ".agents/skills", "lint", skill_text("lint", "Second."))

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert catalog == SkillCatalog(
        skills=(Skill("lint", "First.", first, "project", ()),),
        unusable=(
            UnusableSkill(
                second, f"shadowed by the project skill of the same name at {first}", shadowed=True
            ),
        ),
    )


def test_workspace_that_is_home_lists_each_skill_once(home: Path) -> None:
    path = write_skill(home / ".claude/skills", "mine", skill_text("mine", "Mine."))

    catalog = discover_skills(home, home=home, include_builtin=False)

    assert catalog == SkillCatalog((Skill("mine", "Mine.", path, "project", ()),), ())


def test_broken_skill_does_not_shadow_a_good_one(workspace: Path, home: Path) -> None:
    broken = write_skill(workspace / ".claude/skills", "tidy", "---\nname: tidy\n")
    good = write_skill(home / ".claude/skills", "tidy", skill_text("tidy", "Tidy."))

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert catalog.skills == (Skill("tidy", "Tidy.", good, "user", ()),)
    assert [entry.path for entry in catalog.unusable] == [broken]


@pytest.mark.parametrize(
    ("directory", "text", "reason"),
    [
        ("open", "---\nname: open\n", "the front matter is not closed by a '---' line"),
        (
            "broken",
            "---\n[unclosed, 'list\n---\nbody\n",
            "the front matter is not valid YAML: found unexpected end of stream "
            "(line 3 of the file)",
        ),
        (
            "listy",
            "---\n- a\n- b\n---\n",
            "the front matter must be a YAML mapping of keys to values",
        ),
        (
            "nodesc",
            "---\nname: nodesc\n---\n\n",
            "'description' is missing: it says what the skill does and when to use it",
        ),
        (
            "blank",
            "---\nname: blank\ndescription: '  '\n---\n",
            "'description' is missing: it says what the skill does and when to use it",
        ),
        (
            "plug:in",
            skill_text("plug-in"),
            "the directory name 'plug:in' cannot name a skill: it must be letters, digits, "
            "'_', '.' and '-', starting with a letter or digit",
        ),
        (
            "tools",
            "---\ndescription: D.\nallowed-tools: {Read: yes}\n---\n",
            "'allowed-tools' must be a string or a list of strings",
        ),
        (
            "toollist",
            "---\ndescription: D.\nallowed-tools: [Read, 3]\n---\n",
            "'allowed-tools' must list tool names as strings",
        ),
    ],
)
def test_unusable_skills_are_listed_with_the_reason(
    workspace: Path, home: Path, directory: str, text: str, reason: str
) -> None:
    path = write_skill(workspace / ".claude/skills", directory, text)

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert catalog == SkillCatalog((), (UnusableSkill(path, reason),))


NAMING_RULES = "(lowercase letters, digits and single hyphens, at most 64 characters)"


@pytest.mark.parametrize(
    ("directory", "text", "name", "lapse"),
    [
        (
            "long",
            "---\ndescription: " + "x" * 1025 + "\n---\n",
            "long",
            "'description' is 1025 characters long, over the 1024 the Agent Skills format "
            "allows (the skill list shortens it)",
        ),
        (
            "numeric",
            "---\nname: 7\ndescription: D.\n---\n",
            "numeric",
            "the name 7 differs from its directory's; it is called 'numeric', as Claude Code "
            "calls it",
        ),
        (
            "mismatch",
            skill_text("other-name"),
            "mismatch",
            "the name 'other-name' differs from its directory's; it is called 'mismatch', as "
            "Claude Code calls it",
        ),
        (
            "dashes",
            skill_text("dash--es"),
            "dashes",
            "the name 'dash--es' differs from its directory's; it is called 'dashes', as "
            "Claude Code calls it",
        ),
        (
            "Upper_Case",
            skill_text("Upper_Case"),
            "Upper_Case",
            f"the name 'Upper_Case' is not a valid skill name {NAMING_RULES}; it is loaded all "
            "the same",
        ),
    ],
)
def test_skills_claude_code_loads_are_loaded_with_a_warning(
    workspace: Path, home: Path, directory: str, text: str, name: str, lapse: str
) -> None:
    path = write_skill(workspace / ".claude/skills", directory, text)

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert [(skill.name, skill.path) for skill in catalog.skills] == [(name, path)]
    assert (catalog.unusable, catalog.warnings) == ((), (f"skill {path}: {lapse}",))


def test_unquoted_description_with_colons_is_read_as_claude_code_reads_it(
    workspace: Path, home: Path
) -> None:
    text = (
        "---\nname: triage\ndescription: Sort bug reports. Examples: <example>Context: a "
        'crash. user: "sort these"</example>\ndisable-model-invocation: true\n---\nSort.\n'
    )
    path = write_skill(workspace / ".claude/skills", "triage", text)

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    description = (
        'Sort bug reports. Examples: <example>Context: a crash. user: "sort these"</example>'
    )
    assert catalog == SkillCatalog(
        (Skill("triage", description, path, "project", (), model_invocable=False),), ()
    )


def test_too_long_directory_name_is_loaded_with_a_warning(workspace: Path, home: Path) -> None:
    name = "a" * 65
    path = write_skill(workspace / ".claude/skills", name, skill_text(name))

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert [skill.name for skill in catalog.skills] == [name]
    assert catalog.warnings == (
        f"skill {path}: the name {name!r} is not a valid skill name {NAMING_RULES}; it is "
        "loaded all the same",
    )


def test_undecodable_file_is_unusable(workspace: Path, home: Path) -> None:
    path = workspace / ".claude/skills/bytes/SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"---\nname: bytes\ndescription: \xff\n---\n")

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert catalog.skills == ()
    assert len(catalog.unusable) == 1
    assert catalog.unusable[0].path == path
    assert catalog.unusable[0].reason.startswith("cannot read the file: ")


def test_name_defaults_to_the_directory(workspace: Path, home: Path) -> None:
    path = write_skill(workspace / ".claude/skills", "nameless", "---\ndescription: D.\n---\nX\n")

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert catalog.skills == (Skill("nameless", "D.", path, "project", ()),)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Read, Grep, Bash(git diff:*)", ("Read", "Grep", "Bash(git diff:*)")),
        ("Read Grep Bash(git log --oneline:*)", ("Read", "Grep", "Bash(git log --oneline:*)")),
        ("[Read, 'Bash(npm run test:*)']", ("Read", "Bash(npm run test:*)")),
        ("''", ()),
    ],
)
def test_allowed_tools_as_string_or_list(
    workspace: Path, home: Path, value: str, expected: tuple[str, ...]
) -> None:
    write_skill(
        workspace / ".claude/skills",
        "tools",
        f"---\ndescription: D.\nallowed-tools: {value}\n---\n",
    )

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    skill = catalog.get("tools")
    assert skill is not None
    assert skill.allowed_tools == expected


def test_front_matter_with_bom_and_multiline_description(workspace: Path, home: Path) -> None:
    text = "\ufeff---\nname: folded\ndescription: >\n  Line one\n  line two.\n---\nBody\n"
    path = write_skill(workspace / ".claude/skills", "folded", text)

    catalog = discover_skills(workspace, home=home, include_builtin=False)

    assert catalog.skills == (Skill("folded", "Line one line two.", path, "project", ()),)


def test_get_returns_none_for_unknown(workspace: Path, home: Path) -> None:
    catalog = discover_skills(workspace, home=home)
    assert catalog.get("code-review") is not None
    assert catalog.get("nope") is None
