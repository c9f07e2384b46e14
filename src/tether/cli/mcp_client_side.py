"""How a session answers what its MCP servers ask (`tether.mcp.client_side`): its roots (the
workspace and the added directories), elicitation and sampling. Declaring the last two is what
lets a server offer the tools that need them.

- Elicitation (a form for the user), as Claude Code answers it: `Elicitation` hooks first
  (matched on the server's name; `action` and `content` answer, exit 2 declines); else the
  SDK client driving the session is asked (an `elicitation` request), and without one (or
  one that does not take forms) it is declined, so the server carries on with its own
  fallback. Then `ElicitationResult` hooks see the answer and may change it (exit 2
  declines) before it goes to the server. The REPL does not show forms yet.
- Sampling (a completion from the model): through the session's own model and provider, its
  cost counted in the session's; only for a server the permission rules allow as a whole
  (`"allow": ["mcp__<server>"]`, or the bypassPermissions mode), never where a rule denies
  it. Otherwise the server is told why and how to allow it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.cli.terminal_text import terminal_safe
from tether.mcp.client_side import (
    ClientSide,
    Elicit,
    Elicitation,
    Elicited,
    Refused,
    Sampled,
    SamplingRequest,
)

if TYPE_CHECKING:
    from tether.core.session import Session
    from tether.hooks import HookOutcome

SAMPLING_MAX_TOKENS = 4096
"""The most a server's completion may take, whatever it asks for."""


def session_client_side(
    session: Session, roots: Sequence[Path], ask: Elicit | None = None
) -> ClientSide:
    """What `session` answers its servers, with `roots` as the directories they work in;
    `ask` shows a form to the user (none: forms the hooks leave unanswered are declined)."""

    async def elicit(asked: Elicitation) -> Elicited:
        return await answer_form(session, asked, ask)

    async def sample(request: SamplingRequest) -> Sampled:
        return await _sample(session, request)

    return ClientSide(roots=tuple(roots), elicit=elicit, sample=sample)


async def answer_form(session: Session, asked: Elicitation, ask: Elicit | None) -> Elicited:
    """The answer to a server's form: the `Elicitation` hooks', else the user's through `ask`
    (declined without it), as the `ElicitationResult` hooks leave it."""
    gate = session.agent.gate
    hooks = gate.hooks if gate is not None else None
    mode = "url" if asked.url is not None else "form"
    about: dict[str, Any] = {"mcp_server_name": asked.server}
    if asked.elicitation_id is not None:
        about["elicitation_id"] = asked.elicitation_id
    said: Elicited | None = None
    if hooks is not None and hooks.has("Elicitation"):
        shown = {"url": asked.url} if asked.url is not None else {"requested_schema": asked.schema}
        payload = {**about, "message": asked.message, "mode": mode, **shown}
        said = _hook_answer(await hooks.fire("Elicitation", payload), None)
    if said is None:
        said = await ask(asked) if ask is not None else Elicited("decline")
    if hooks is not None and hooks.has("ElicitationResult"):
        content = {"content": said.content} if said.content is not None else {}
        payload = {**about, "mode": mode, "action": said.action, **content}
        said = _hook_answer(await hooks.fire("ElicitationResult", payload), said) or said
    return said


def _hook_answer(outcome: HookOutcome, before: Elicited | None) -> Elicited | None:
    """What hooks answered: a block declines, an `action` answers (an accept without
    `content` keeps the content answered `before`); None when they said nothing."""
    for error in outcome.errors:  # asked outside the turn's events: said on stderr
        print(f"tether: hook: {terminal_safe(error)}", file=sys.stderr, flush=True)
    if outcome.blocked:
        return Elicited("decline")
    action = outcome.elicit_action
    if action is None:
        return None
    if action != "accept":
        return Elicited(action)
    content = outcome.elicit_content
    if content is None and before is not None:
        content = before.content
    return Elicited("accept", content)


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
    from tether.core.reply_fit import fit_reply
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
        done = await call_model(agent.model, fit_reply(agent, asked), lambda _e: None, agent.retry)
    except ModelError as exc:
        raise Refused(f"the model call failed: {exc}") from None
    agent.spend_aside(done.usage)
    cut = done.stop_reason in ("max_tokens", "model_context_window_exceeded")
    stop = "maxTokens" if cut else "endTurn"
    return Sampled(done.message.text(), agent.model_id, stop)
