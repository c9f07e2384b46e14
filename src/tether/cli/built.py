"""What building a session gives a front end: the session and what reporting on it needs
(`setup.build` makes it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tether.agents import AgentCatalog
from tether.cli.instruction_imports import ProjectInstructions
from tether.cli.mcp_setup import McpSetup
from tether.cli.model_names import ModelNames
from tether.cli.plugin_parts import SessionPlugins
from tether.core.session import Session
from tether.protocol import Record

if TYPE_CHECKING:
    from tether.teams.board import TaskBoard
    from tether.teams.lead import LeadTeams


@dataclass(frozen=True)
class Built:
    """A session and what a front end reporting on it needs to know."""

    session: Session
    mcp: McpSetup
    agents: AgentCatalog
    key_source: str
    """The variable the model's key came from ("none" without one)."""
    lead: LeadTeams | None = None
    """The session's team-lead side, when agent teams are on (front ends show its mail)."""
    plugins: SessionPlugins = field(default_factory=SessionPlugins)
    board: TaskBoard | None = None
    """The team's board, when the session has the task tools."""
    account: dict[str, str] = field(default_factory=dict[str, str])
    """The SDK's `accountInfo()`, as Claude Code fills it: where the key or token came from
    and, on the Anthropic provider, `apiProvider` "firstParty"."""
    record_event: Callable[[Record], None] = field(default=lambda _event: None)
    """Records an event of the session's team (`tether.protocol.team_events`) in its event
    log, as the session's."""
    instructions: ProjectInstructions | None = None
    """The instruction files it read (`reload` after the user edited one: `/memory`)."""
    status_line: tuple[str, int] | str | None = None
    """The `statusLine` command and padding (`tether.cli.status_line`), or why it is ignored."""
    output_style: str = "default"
    """The name of the output style in use."""
    provider: str = "anthropic"
    """The name of the provider the session's model was resolved on (at its start)."""
    reread_agents: Callable[[], AgentCatalog] | None = None
    """Reads the agent files again; the session offers what it finds from then on (Claude
    Code's /agents loads a file added by hand so)."""
    names: ModelNames | None = None
    """The names reports give the session's models (Claude Code's, with the user's `[1m]`)."""
    start_thinking_budget: int | None = None
    """The thinking budget the session started with: a client's `set_max_thinking_tokens`
    of null goes back to it, as in Claude Code (thinking off at the start stays off)."""

    def shown_model(self, model_id: str | None = None) -> str:
        """The name reports give `model_id` (by default the session's model now)."""
        model_id = model_id if model_id is not None else self.session.agent.model_id
        return self.names.shown(model_id) if self.names is not None else model_id

    @property
    def context_window(self) -> int:
        """The window of the model the session uses now (it follows a model switch)."""
        compaction = self.session.agent.compaction
        return compaction.policy.window if compaction is not None else 0


def account_info(provider: str, key_source: str, env: Mapping[str, str]) -> dict[str, str]:
    """The SDK's `accountInfo()`, as Claude Code fills it."""
    if provider != "anthropic":
        return {"apiKeySource": key_source}
    token = "ANTHROPIC_AUTH_TOKEN" if env.get("ANTHROPIC_AUTH_TOKEN") else "none"
    account = {"tokenSource": token}
    if key_source != "none" or token == "none":
        account["apiKeySource"] = key_source
    return {**account, "apiProvider": "firstParty"}
