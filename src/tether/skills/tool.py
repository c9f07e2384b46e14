"""The Skill tool as data and a handler: the caller wraps it into a tool of its registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.skills.body import load_skill_body
from tether.skills.catalog import SkillCatalog, is_loadable_skill_name
from tether.skills.commands import expand_command
from tether.skills.errors import SkillError

if TYPE_CHECKING:
    from tether.skills.skill_input import SkillInput

SKILL_INPUT = "tether.skills.skill_input:SkillInput"
"""The Skill tool's input model, imported at its first call (its schema is stored)."""

SKILL_TOOL_NAME = "Skill"

SKILL_TOOL_DESCRIPTION = """\
Load a skill: expert instructions for a kind of task (a review checklist, a debugging method, a \
project's release steps...), kept out of the prompt until needed.

- The system prompt lists the skills available, by name and description. When one matches the \
task at hand, call this tool with its name BEFORE starting the work, then follow the \
instructions it returns.
- Only use names from that list; do not guess. Load a skill once per task; its instructions \
stay in the conversation.
- `args` passes the specifics (a file, a commit range, an error message) to the skill.
- A skill may mention files of its own (scripts/, reference.md); its directory is given with \
its instructions, so Read or run them from there."""


def run_skill(catalog: SkillCatalog, args: SkillInput) -> tuple[str, tuple[str, ...]]:
    """Load the named skill, or run the custom or plugin command of the name the catalogue
    offers (as Claude Code's Skill tool does): (its instructions for the model, the tools it
    allows this turn).

    Raises SkillError for a malformed, unknown or unusable name, naming the skills there are.
    """
    name = args.skill.strip()
    command = catalog.command(name) if catalog.get(name) is None else None
    if command is not None:
        return expand_command(command, args.args or ""), command.allowed_tools
    # A plugin's skill is `plugin:skill`; the lookup is exact, so the prefix names no path.
    if not is_loadable_skill_name(name.rpartition(":")[2]):
        raise SkillError(
            f"{args.skill!r} is not a skill name: names are letters, digits, '_', '.' and "
            f"'-'. {_available(catalog)}"
        )
    skill = catalog.get(name)
    if skill is not None and not skill.model_invocable:
        raise SkillError(
            f"The skill {name!r} is run by the user only (/{name}), never loaded by the model. "
            f"{_available(catalog)}"
        )
    if skill is not None and catalog.waiting(skill):
        raise SkillError(
            f"The skill {name!r} is for files matching {', '.join(skill.paths or ())}: it is "
            f"offered once such a file is read or edited. {_available(catalog)}"
        )
    if skill is None:
        broken = [entry for entry in catalog.unusable if entry.path.parent.name == name]
        if broken:
            reasons = "; ".join(f"{entry.path}: {entry.reason}" for entry in broken)
            raise SkillError(
                f"The skill {name!r} cannot be used ({reasons}). {_available(catalog)}"
            )
        raise SkillError(f"There is no skill called {name!r}. {_available(catalog)}")
    return load_skill_body(skill, args.args), skill.allowed_tools


def _available(catalog: SkillCatalog) -> str:
    offered = [skill.name for skill in catalog.offered_to_model()]
    offered += [command.qualified_name for command in catalog.commands]
    if not offered:
        return "No skills are available."
    return "Available skills: " + ", ".join(offered) + "."
