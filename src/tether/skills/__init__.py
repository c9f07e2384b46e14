"""Agent Skills: SKILL.md discovery, the prompt listing, and the Skill tool that loads one."""

from tether.skills.body import load_skill_body
from tether.skills.catalog import (
    Skill,
    SkillCatalog,
    SkillSource,
    UnusableSkill,
    is_valid_skill_name,
)
from tether.skills.discovery import discover_skills
from tether.skills.errors import SkillError
from tether.skills.tool import SKILL_INPUT, SKILL_TOOL_DESCRIPTION, SKILL_TOOL_NAME, run_skill

__all__ = [
    "SKILL_INPUT",
    "SKILL_TOOL_DESCRIPTION",
    "SKILL_TOOL_NAME",
    "Skill",
    "SkillCatalog",
    "SkillError",
    "SkillSource",
    "UnusableSkill",
    "discover_skills",
    "is_valid_skill_name",
    "load_skill_body",
    "run_skill",
]
