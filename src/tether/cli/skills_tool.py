"""The Skill tool: the skills service's catalogue, offered to the model as a tool.

Loading a skill may grant tools for the rest of the turn (its `allowed-tools`); deny rules still
win, and the grant ends with the turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tether.skills import (
    SKILL_INPUT,
    SKILL_TOOL_DESCRIPTION,
    SKILL_TOOL_NAME,
    SkillCatalog,
    run_skill,
)
from tether.tools.base import Tool
from tether.tools.context import ToolContext

if TYPE_CHECKING:
    from tether.skills.skill_input import SkillInput


def skill_tool(catalog: SkillCatalog, grant: Callable[[Sequence[str]], None]) -> Tool:
    async def handler(ctx: ToolContext, args: SkillInput) -> str:
        text, allowed = run_skill(catalog, args)
        if allowed:
            grant(allowed)
        return text

    return Tool(SKILL_TOOL_NAME, SKILL_TOOL_DESCRIPTION, SKILL_INPUT, handler, read_only=True)


def unusable_notices(catalog: SkillCatalog) -> list[str]:
    """Skills that could not be loaded, and skills loaded against the format's rules, said at
    start-up (a shadowed skill is not a problem)."""
    unusable = [
        f"skill {u.path} is unusable: {u.reason}" for u in catalog.unusable if not u.shadowed
    ]
    return [*unusable, *catalog.warnings]
