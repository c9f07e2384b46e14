"""The Skill tool's input model: imported at its first call, pydantic with it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SkillInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    skill: str = Field(
        description='The name of a skill from the list in the system prompt, e.g. "code-review".'
    )
    args: str | None = Field(
        default=None, description="Optional details for the skill: files, a commit range, a goal."
    )
