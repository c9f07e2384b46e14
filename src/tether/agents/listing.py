"""The agent types as the model is told them: one line each, and the listing of those the Task
tool's description does not name (sent in a reminder), within a bound."""

from __future__ import annotations

from tether.agents.builtin import BUILTIN_AGENTS
from tether.agents.definitions import AgentCatalog, AgentDefinition

LISTING_CHARS = 8_000
"""The most the agent listing takes; agents past it are named without their descriptions."""
DESCRIPTION_CHARS = 250
"""The most of one agent's description the listing shows."""


def agent_line(agent: AgentDefinition) -> str:
    description = " ".join(agent.description.split())
    if len(description) > DESCRIPTION_CHARS:
        description = description[: DESCRIPTION_CHARS - 1].rstrip() + "…"
    return f"- {agent.name}: {description}"


def agent_listing(catalog: AgentCatalog) -> str | None:
    """The agent types the Task tool's description does not name, told in a reminder (None
    when there are none): one line each, descriptions cut at `DESCRIPTION_CHARS`; past
    `LISTING_CHARS` the rest are only named."""
    others = [agent for agent in catalog.agents if agent not in BUILTIN_AGENTS]
    if not others:
        return None
    lines = ["Available agent types for the Agent tool (subagent_type), besides the built-in ones:"]
    size = len(lines[0])
    rest: list[str] = []
    for agent in others:
        line = agent_line(agent)
        if rest or size + len(line) + 1 > LISTING_CHARS:
            rest.append(agent.name)
            continue
        lines.append(line)
        size += len(line) + 1
    if rest:
        lines.append(f"Also available (no room for their descriptions): {', '.join(rest)}")
    return "\n".join(lines)
