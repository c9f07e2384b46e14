"""The hooks a subagent fires as it starts and as it ends: SubagentStart, whose context opens its
conversation, and SubagentStop, which may send it back to work."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tether.agents.definitions import AgentDefinition
from tether.core.gate_types import hook_context
from tether.core.lifecycle import stop_feedback as lifecycle_stop_feedback
from tether.core.lifecycle import surface
from tether.core.loop import Agent
from tether.core.tool_calls import CallScope
from tether.protocol import Event


async def start_hooks(
    child: Agent, definition: AgentDefinition, agent_id: str, scope: CallScope
) -> tuple[str, ...]:
    """Fire SubagentStart as the subagent begins; what its hooks add for the model
    (`additionalContext`) opens the subagent's conversation."""
    hooks = child.gate.hooks if child.gate is not None else None
    if hooks is None or not hooks.has("SubagentStart"):
        return ()
    outcome = await hooks.fire(
        "SubagentStart", {"agent_id": agent_id, "agent_type": definition.name}
    )
    surface(outcome, scope.emit)
    return hook_context("SubagentStart", definition.name, outcome)


async def stop_feedback(
    child: Agent,
    definition: AgentDefinition,
    agent_id: str,
    continuations: int,
    emit: Callable[[Event], None],
    said: Mapping[str, str],
) -> str | None:
    """Fire SubagentStop (`said`: its transcript and its last text); the reason a blocking
    hook gives sends the subagent back to work."""
    hooks = child.gate.hooks if child.gate is not None else None
    if hooks is None or not hooks.has("SubagentStop"):
        return None
    outcome = await hooks.fire(
        "SubagentStop",
        {
            "agent_type": definition.name,
            "agent_id": agent_id,
            "stop_hook_active": continuations > 0,
            **said,
        },
        match=definition.name,
    )
    surface(outcome, emit)
    return lifecycle_stop_feedback(outcome, continuations, "a SubagentStop hook asked to continue")
