"""The Task tool's input model: imported at its first call, pydantic with it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class TaskInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    description: str = Field(description="A short (3-5 words) summary of the task, for display.")
    prompt: str = Field(
        description="The whole task for the subagent, with all the context it needs and what "
        "its final answer should contain."
    )
    subagent_type: str = Field(description="The type of agent to run: one of the types listed.")
    team_name: str | None = Field(
        default=None, description="With name: start a teammate in this team (see TeamCreate)"
    )
    name: str | None = Field(default=None, description="With team_name: the teammate's name")
    mode: Literal["default", "plan"] | None = Field(
        default=None,
        description='With team_name: "plan" starts the teammate in plan mode (read-only until '
        "you approve its plan)",
    )
    run_in_background: bool | None = Field(
        default=None,
        description="Run the agent in the background: the call returns at once and you are "
        "notified when it completes (do not poll or sleep for it)",
    )
