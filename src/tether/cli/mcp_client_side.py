"""How a session answers what its MCP servers ask (`tether.mcp.client_side`): its roots (the
workspace and the added directories), elicitation and sampling. Declaring the last two is what
lets a server offer the tools that need them.

- Elicitation (a form for the user): declined, so the server carries on with its own
  fallback, as Claude Code's print mode does. The REPL does not show forms yet.
- Sampling (a completion from the model): through the session's own model and provider, its
  cost counted in the session's; only for a server the permission rules allow as a whole
  (`"allow": ["mcp__<server>"]`, or the bypassPermissions mode), never where a rule denies
  it. Otherwise the server is told why and how to allow it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tether.mcp.client_side import (
    ClientSide,
    Elicitation,
    Elicited,
    Refused,
    Sampled,
    SamplingRequest,
)

if TYPE_CHECKING:
    from tether.core.session import Session

SAMPLING_MAX_TOKENS = 4096
"""The most a server's completion may take, whatever it asks for."""


def session_client_side(session: Session, roots: Sequence[Path]) -> ClientSide:
    """What `session` answers its servers, with `roots` as the directories they work in."""

    async def elicit(asked: Elicitation) -> Elicited:
        del asked  # nobody to show the form to: declined, and the server goes on without it
        return Elicited("decline")

    async def sample(request: SamplingRequest) -> Sampled:
        return await _sample(session, request)

    return ClientSide(roots=tuple(roots), elicit=elicit, sample=sample)


def sampling_allowed(session: Session, server: str) -> str | None:
    """None when the rules let `server` use the model; else why not, said for the server."""
    gate = session.agent.gate
    if gate is None:
        return None
    whole = f"mcp__{server}"
    context = gate.permissions

    def names_server(kind: str) -> bool:
        return any(
            rule.kind == kind and rule.specifier is None and rule.tool.removesuffix("__*") == whole
            for rule in context.rules.rules
        )

    if names_server("deny"):
        return f"the permission rules deny MCP server {server!r}"
    if context.mode == "bypassPermissions" or names_server("allow"):
        return None
    return (
        f"sampling needs permission: allow MCP server {server!r} as a whole "
        f'(permissions.allow: ["{whole}"])'
    )


async def _sample(session: Session, request: SamplingRequest) -> Sampled:
    from tether.core.model_call import call_model
    from tether.models.base import ModelRequest
    from tether.protocol import Message, ModelError, TextBlock

    refusal = sampling_allowed(session, request.server)
    if refusal is not None:
        raise Refused(refusal)
    agent = session.agent
    messages = tuple(
        Message(role=role, content=(TextBlock(text=text or "(empty)"),))
        for role, text in request.messages
    )
    if not messages or messages[-1].role != "user":
        raise Refused("sampling needs the conversation to end with a user message")
    asked = ModelRequest(
        model=agent.model_id,
        system=request.system or "",
        messages=messages,
        max_tokens=max(1, min(request.max_tokens, SAMPLING_MAX_TOKENS)),
    )
    try:
        done = await call_model(agent.model, asked, lambda _event: None, agent.retry)
    except ModelError as exc:
        raise Refused(f"the model call failed: {exc}") from None
    agent.spend_aside(done.usage)
    cut = done.stop_reason in ("max_tokens", "model_context_window_exceeded")
    stop = "maxTokens" if cut else "endTurn"
    return Sampled(done.message.text(), agent.model_id, stop)
