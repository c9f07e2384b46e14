"""`TeamCreate` and `TeamDelete`, with Claude Code's input names, over a session's
`LeadTeams`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tether.teams.lead import LeadTeams
from tether.tools.base import Tool, ToolOutput, tool
from tether.tools.context import ToolContext


class TeamCreateInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    team_name: str = Field(description="Name for the new team")
    description: str | None = Field(default=None, description="What the team is for")
    agent_type: str | None = Field(default=None, description="The lead's agent type")


class NoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


def lead_tools(lead: LeadTeams) -> list[Tool]:
    @tool("TeamCreate", read_only=True)
    async def team_create(ctx: ToolContext, args: TeamCreateInput) -> ToolOutput:
        """Create a team that you lead: teammates are then started with the Agent tool (with
        team_name and name) and talked to with SendMessage. One team per session. A team
        that exists with no lead running (one started with `tether team up`) is led from
        here: its waiting messages come to you."""
        made = await lead.create(args.team_name, args.description or "")
        done = made.get("taken_up") or f"Team {args.team_name} created in {made['store']}"
        return ToolOutput(text=str(done), structured=made)

    @tool("TeamDelete", read_only=True)
    async def team_delete(ctx: ToolContext, args: NoInput) -> ToolOutput:
        """Delete the team you lead, its members and mailboxes, once no teammate runs."""
        gone = await lead.delete()
        return ToolOutput(text=f"Team {gone['team_name']} deleted", structured=gone)

    return [team_create, team_delete]
