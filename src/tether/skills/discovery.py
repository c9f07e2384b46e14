"""Finding skills: `<dir>/<name>/SKILL.md` in the project, the user's home, and tether itself."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from tether.path_globs import path_globs
from tether.skills.catalog import (
    MAX_DESCRIPTION_CHARS,
    Skill,
    SkillCatalog,
    SkillSource,
    UnusableSkill,
    is_loadable_skill_name,
    is_valid_skill_name,
)
from tether.skills.frontmatter import FrontMatterError, first_line, parse_optional
from tether.slotted import Slotted, replaced
from tether.text_files import UnreadableFile, read_text_file, real_path

SKILL_FILE = "SKILL.md"
PROJECT_SKILL_DIRS = (".tether/skills", ".claude/skills", ".agents/skills")
"""Relative to the workspace, first wins when two hold a skill of the same name."""
USER_SKILL_DIRS = (".claude/skills",)
"""Relative to the user's home."""
BUILTIN_SKILL_DIR = Path(__file__).parent / "builtin"


class _Unusable(Exception):
    """One SKILL.md cannot be offered; the message is the reason."""


class _Root(Slotted):
    __slots__ = ("directory", "namespace", "plugin_root", "source")
    directory: Final[Path]
    source: Final[SkillSource]
    namespace: Final[str]
    """A plugin's name: its skills are called `plugin:skill`, as in Claude Code."""
    plugin_root: Final[Path | None]

    def __init__(
        self,
        directory: Path,
        source: SkillSource,
        namespace: str = "",
        plugin_root: Path | None = None,
    ) -> None:
        self.directory = directory
        self.source = source
        self.namespace = namespace
        self.plugin_root = plugin_root


def discover_skills(
    workspace: Path,
    *,
    home: Path,
    include_builtin: bool = True,
    below: Sequence[Path] = (),
    admits: Callable[[Path], bool] | None = None,
    plugins: Sequence[tuple[str, Path, Path]] = (),
) -> SkillCatalog:
    """Every skill the session can offer, and every SKILL.md that cannot be offered and why.

    Project skills shadow user skills of the same name, and both shadow tether's own; the
    shadowed ones are listed as unusable, naming the skill that won. `below`: directories of
    the project between the directory tether started in and the workspace root, deepest
    first; their skills are found before the root's (as Claude Code walks up to the root).
    `admits` says whether a skills directory is of a source the session reads
    (`--setting-sources`); tether's own skills are always offered. `plugins`: each plugin's
    name, its directory and a directory of its skills (or one skill's directory); they are
    named `plugin:skill` and come after the user's.
    """
    roots = [
        _Root(directory / relative, "project")
        for directory in (*below, workspace)
        for relative in PROJECT_SKILL_DIRS
    ]
    roots += [_Root(home / relative, "user") for relative in USER_SKILL_DIRS]
    if admits is not None:
        roots = [root for root in roots if admits(root.directory)]
    roots += [_Root(directory, "plugin", name, root) for name, root, directory in plugins]
    if include_builtin:
        roots.append(_Root(BUILTIN_SKILL_DIR, "builtin"))

    chosen: dict[str, Skill] = {}
    unusable: list[UnusableSkill] = []
    warnings: list[str] = []
    seen: set[Path] = set()
    for root in roots:
        try:
            skill_dirs = (
                [root.directory]
                if root.namespace and os.path.lexists(root.directory / SKILL_FILE)
                else _skill_dirs(root.directory)
            )
        except OSError as exc:
            unusable.append(UnusableSkill(root.directory, f"cannot list the directory: {exc}"))
            continue
        for skill_dir in skill_dirs:
            # A workspace that is the home directory lists its skills twice; keep the first.
            identity = real_path(skill_dir)
            if identity in seen:
                continue
            seen.add(identity)
            path = skill_dir / SKILL_FILE
            try:
                skill, lapses = _read_skill(path, root.source)
            except _Unusable as exc:
                unusable.append(UnusableSkill(path, str(exc)))
                continue
            if root.namespace:
                skill = replaced(
                    skill, name=f"{root.namespace}:{skill.name}", plugin_root=root.plugin_root
                )
            warnings.extend(f"skill {path}: {lapse}" for lapse in lapses)
            winner = chosen.get(skill.name)
            if winner is None:
                chosen[skill.name] = skill
            else:
                reason = f"shadowed by the {winner.source} skill of the same name at {winner.path}"
                unusable.append(UnusableSkill(path, reason, shadowed=True))
    skills = tuple(sorted(chosen.values(), key=lambda skill: skill.name))
    return SkillCatalog(skills, tuple(unusable), tuple(warnings))


def _skill_dirs(directory: Path) -> list[Path]:
    """The subdirectories holding a SKILL.md, sorted by name; none if `directory` is absent.

    Raises OSError when the directory exists but cannot be listed.
    """
    try:
        entries = sorted(directory.iterdir(), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [
        entry
        for entry in entries
        # Whatever is at SKILL.md is read: what is not a readable file is reported, not skipped.
        if not entry.name.startswith(".") and entry.is_dir() and os.path.lexists(entry / SKILL_FILE)
    ]


def _read_skill(path: Path, source: SkillSource) -> tuple[Skill, list[str]]:
    """The skill, and what its file does against the Agent Skills rules that Claude Code
    overlooks (it loads the skill all the same, and so does tether)."""
    directory_name = path.parent.name
    if not is_loadable_skill_name(directory_name):
        raise _Unusable(
            f"the directory name {directory_name!r} cannot name a skill: it must be letters, "
            "digits, '_', '.' and '-', starting with a letter or digit"
        )
    try:
        text = read_text_file(path) or ""
    except UnreadableFile as exc:
        raise _Unusable(f"cannot read the file: it {exc.reason}") from None
    try:
        document = parse_optional(text)
    except FrontMatterError as exc:
        raise _Unusable(str(exc)) from None
    metadata = document.metadata
    lapses: list[str] = []
    skill = Skill(
        name=_name(metadata, directory_name, lapses),
        description=_description(metadata, document.body, lapses),
        path=path,
        source=source,
        allowed_tools=_allowed_tools(metadata.get("allowed-tools")),
        model_invocable=metadata.get("disable-model-invocation") is not True,
        paths=_paths(metadata, lapses),
    )
    return skill, lapses


def _paths(metadata: dict[str, Any], lapses: list[str]) -> tuple[str, ...] | None:
    """`paths`, read as a rule's are (`tether.path_globs`); globs that cannot be taken leave
    the skill offered from the start, said."""
    read = path_globs(metadata.get("paths"))
    if read.problem is not None:
        lapses.append(f"{read.problem}: the skill is offered whatever files are touched")
    return read.globs


def _name(metadata: dict[str, Any], directory_name: str, lapses: list[str]) -> str:
    """The directory's name, which Claude Code calls the skill by (`/dirname`, the Skill tool)
    whatever its `name` says; a `name` that differs, or a directory name against the Agent
    Skills rule, is said."""
    name = metadata.get("name", directory_name)
    if name != directory_name:
        lapses.append(
            f"the name {name!r} differs from its directory's; it is called {directory_name!r}, "
            "as Claude Code calls it"
        )
    if not is_valid_skill_name(directory_name):
        lapses.append(
            f"the name {directory_name!r} is not a valid skill name (lowercase letters, digits "
            "and single hyphens, at most 64 characters); it is loaded all the same"
        )
    return directory_name


def _description(metadata: dict[str, Any], body: str, lapses: list[str]) -> str:
    """`description`; without one, the body's first line, as Claude Code describes the skill
    (said: the description is what tells the model when to use it)."""
    description = metadata.get("description")
    if description is None:
        description = first_line(body)
        if not description:
            raise _Unusable(
                "'description' is missing: it says what the skill does and when to use it"
            )
        shown = description if len(description) <= 80 else f"{description[:79]}…"
        lapses.append(
            "'description' is missing (it says what the skill does and when to use it); "
            f"its first line is used: {shown!r}"
        )
    if not isinstance(description, str) or not description.strip():
        raise _Unusable("'description' must be a non-empty string")
    if len(description) > MAX_DESCRIPTION_CHARS:
        lapses.append(
            f"'description' is {len(description)} characters long, over the "
            f"{MAX_DESCRIPTION_CHARS} the Agent Skills format allows (the skill list shortens it)"
        )
    return description.strip()


def _allowed_tools(value: object) -> tuple[str, ...]:
    """`allowed-tools` as a YAML list, or a string separated by commas or spaces.

    Spaces inside parentheses belong to the rule: `Bash(git diff:*) Read` is two entries.
    """
    if value is None:
        return ()
    if isinstance(value, list):
        items: list[str] = []
        for item in value:  # pyright: ignore[reportUnknownVariableType]
            if not isinstance(item, str):
                raise _Unusable("'allowed-tools' must list tool names as strings")
            items.append(item.strip())
        return tuple(item for item in items if item)
    if not isinstance(value, str):
        raise _Unusable("'allowed-tools' must be a string or a list of strings")
    return tuple(split_tool_rules(value))


def split_tool_rules(text: str) -> list[str]:
    """Rules separated by commas or spaces, a space inside parentheses kept in its rule."""
    entries: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if depth == 0 and (char == "," or char.isspace()):
            entries.append("".join(current))
            current = []
            continue
        if char == "(":
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
        current.append(char)
    entries.append("".join(current))
    return [entry.strip() for entry in entries if entry.strip()]
