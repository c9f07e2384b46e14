"""What discovery found: usable skills, unusable ones with reasons, and the prompt listing."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from tether.path_globs import expanded, paths_matcher
from tether.slotted import Slotted

if TYPE_CHECKING:
    from tether.skills.commands import SlashCommand

SkillSource = Literal["project", "user", "plugin", "builtin"]

MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_LOADABLE_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")

PROMPT_HEADER = "Skills you can load with the Skill tool:"
_MIN_DESCRIPTION_CHARS = 40
"""Below this a shortened description says too little; entries are dropped instead."""
_SOURCE_PRIORITY: dict[SkillSource, int] = {"project": 0, "user": 1, "plugin": 2, "builtin": 3}


def is_valid_skill_name(name: str) -> bool:
    """The Agent Skills rule: 1-64 lowercase letters, digits and single inner hyphens.

    It also keeps a name from naming anything outside its skills directory.
    """
    return len(name) <= MAX_NAME_CHARS and _NAME.fullmatch(name) is not None


def is_loadable_skill_name(name: str) -> bool:
    """What Claude Code loads a skill directory under, though the Agent Skills rule
    (`is_valid_skill_name`) is not kept (`Upper_Case`, `my.skill`): letters, digits, `_`, `.`
    and `-`, starting with a letter or digit, so that `/name` reaches it and the name never
    steps out of its skills directory (no `/`, no `..` alone) nor into a plugin's (no `:`)."""
    return _LOADABLE_NAME.fullmatch(name) is not None


class Skill(Slotted):
    """A usable skill: its listing entry, where its SKILL.md is, and the tools it grants."""

    __slots__ = (
        "allowed_tools",
        "description",
        "model_invocable",
        "name",
        "path",
        "paths",
        "plugin_root",
        "source",
    )
    name: Final[str]
    description: Final[str]
    path: Final[Path]
    """The SKILL.md file; its directory holds the skill's scripts and references."""
    source: Final[SkillSource]
    allowed_tools: Final[tuple[str, ...]]
    """Tools (or permission rules such as `Bash(git diff:*)`) allowed while the skill is active."""
    plugin_root: Final[Path | None]
    """A plugin's skill: the plugin's directory, `${CLAUDE_PLUGIN_ROOT}` in its instructions."""
    model_invocable: Final[bool]
    """False for `disable-model-invocation: true`: left out of what the model is offered (the
    prompt's list and the Skill tool); the user still runs it as `/name`."""
    paths: Final[tuple[str, ...] | None]
    """The `paths:` globs of its front matter, as written (`tether.path_globs`): as in Claude
    Code, the model is offered the skill only once it has read or edited a file they match
    (relative to the directory the session started in); None: offered from the start."""

    def __init__(
        self,
        name: str,
        description: str,
        path: Path,
        source: SkillSource,
        allowed_tools: tuple[str, ...],
        plugin_root: Path | None = None,
        model_invocable: bool = True,
        paths: tuple[str, ...] | None = None,
    ) -> None:
        self.name = name
        self.description = description
        self.path = path
        self.source = source
        self.allowed_tools = allowed_tools
        self.plugin_root = plugin_root
        self.model_invocable = model_invocable
        self.paths = paths


class UnusableSkill(Slotted):
    """A SKILL.md that was found but will not be offered, and why (broken, shadowed...)."""

    __slots__ = ("path", "reason", "shadowed")
    path: Final[Path]
    reason: Final[str]
    shadowed: Final[bool]
    """Left out only because a skill of the same name won: not a problem to report."""

    def __init__(self, path: Path, reason: str, shadowed: bool = False) -> None:
        self.path = path
        self.reason = reason
        self.shadowed = shadowed


@dataclass(frozen=True)
class SkillCatalog:
    """Every skill of a session: the usable ones sorted by name, and the unusable ones."""

    skills: tuple[Skill, ...]
    unusable: tuple[UnusableSkill, ...]
    warnings: tuple[str, ...] = ()
    """Skills loaded despite breaking the Agent Skills rules, as Claude Code loads them, and why
    their authors should look (a description too long, a name that is not its directory's)."""
    commands: tuple[SlashCommand, ...] = ()
    """Custom and plugin commands the model may run through the Skill tool as well, as in
    Claude Code: those with a description and without `disable-model-invocation`."""
    activated: set[str] = field(default_factory=set[str], compare=False)
    """The skills with `paths` a file the model read or edited has matched in this session
    (`activate`); shared by the copies `dataclasses.replace` makes."""
    _matchers: dict[str, Callable[[str], bool]] = field(
        default_factory=dict[str, "Callable[[str], bool]"], compare=False, repr=False
    )

    def command(self, name: str) -> SlashCommand | None:
        """The command `name` (`/name` without its slash; a plugin's as `plugin:name`) the
        model may run, if there is one; a skill of the name wins."""
        for command in self.commands:
            if name == command.qualified_name or (not command.plugin and name == command.name):
                return command
        return None

    def get(self, name: str) -> Skill | None:
        """The usable skill called `name`, if there is one."""
        return next((skill for skill in self.skills if skill.name == name), None)

    def listed(self) -> tuple[Skill, ...]:
        """The skills the user is shown and runs as `/name` (the slash menu, /help, the SDK's
        init line and commands): all but those with `paths` that no file read or edited has
        matched yet, which Claude Code hides until then."""
        return tuple(skill for skill in self.skills if not self.waiting(skill))

    def runnable(self, name: str) -> Skill | None:
        """The skill `/name` runs: as `get`, but None for one still waiting for its `paths`."""
        skill = self.get(name)
        return None if skill is None or self.waiting(skill) else skill

    def offered_to_model(self) -> tuple[Skill, ...]:
        """The skills the model may load: not those with `disable-model-invocation`, nor those
        with `paths` no file read or edited has matched yet."""
        return tuple(
            skill for skill in self.skills if skill.model_invocable and not self.waiting(skill)
        )

    def waiting(self, skill: Skill) -> bool:
        """Whether `skill` has `paths` that no file read or edited has matched yet."""
        return skill.paths is not None and skill.name not in self.activated

    def activate(self, relative: str) -> tuple[Skill, ...]:
        """The skills with `paths` that a file read or edited (`relative` to the directory
        the session started in, `/`-separated) matches first: from now on they are offered."""
        found: list[Skill] = []
        for skill in self.skills:
            if skill.paths is None or skill.name in self.activated:
                continue
            matches = self._matchers.get(skill.name)
            if matches is None:
                matches = self._matchers[skill.name] = paths_matcher(expanded(skill.paths))
            if matches(relative):
                self.activated.add(skill.name)
                found.append(skill)
        return tuple(found)

    def prompt_section(self, budget_chars: int = 4000) -> str:
        """The system prompt's list of skills, names and descriptions only, in at most
        `budget_chars` characters; "" when there are no skills.

        Over budget, descriptions are shortened first; if that is not enough, entries are left
        out (built-in skills before user skills before project skills) with a note saying so.
        """
        offered = self.offered_to_model()
        if not offered and not self.commands:
            return ""
        commands = [(c.qualified_name, " ".join(c.description.split())) for c in self.commands]
        entries = sorted(
            [(skill.name, " ".join(skill.description.split())) for skill in offered] + commands
        )
        full = _render(entries, None, 0)
        if len(full) <= budget_chars:
            return full
        longest = max(len(description) for _, description in entries)
        cap = _largest_fitting_cap(entries, longest, budget_chars)
        if cap is not None:
            return _render(entries, cap, 0)
        by_priority = sorted(
            offered, key=lambda skill: (_SOURCE_PRIORITY[skill.source], skill.name)
        )
        kept = dict(entries)
        for count in range(len(by_priority) - 1, -1, -1):
            names = {skill.name for skill in by_priority[:count]}
            chosen = sorted([(name, kept[name]) for name in names] + commands)
            text = _render(chosen, _MIN_DESCRIPTION_CHARS, len(entries) - count)
            if len(text) <= budget_chars:
                return text
        return ""


def _largest_fitting_cap(
    entries: list[tuple[str, str]], longest: int, budget_chars: int
) -> int | None:
    """The longest description length that fits the budget, or None below the minimum."""
    low, high = _MIN_DESCRIPTION_CHARS, longest
    if len(_render(entries, low, 0)) > budget_chars:
        return None
    while low < high:
        middle = (low + high + 1) // 2
        if len(_render(entries, middle, 0)) <= budget_chars:
            low = middle
        else:
            high = middle - 1
    return low


def _render(entries: list[tuple[str, str]], cap: int | None, omitted: int) -> str:
    lines = [PROMPT_HEADER]
    shortened = False
    for name, description in entries:
        if cap is not None and len(description) > cap:
            description = description[: cap - 1].rstrip() + "…"
            shortened = True
        lines.append(f"- {name}: {description}")
    if shortened:
        lines.append("(Some descriptions are shortened.)")
    if omitted:
        noun = "skill" if omitted == 1 else "skills"
        lines.append(f"({omitted} more {noun} not listed, for lack of room.)")
    return "\n".join(lines)
