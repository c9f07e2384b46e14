"""Every request inside the model's context window, whatever the conversation holds.

Before a call: compact when the last response showed the window filling up; send old bulky
results as notes once the window is pressed (`micro`); then estimate the request (`sizing`)
and, if it would not fit (one reply or one tool input can be bigger than the whole window),
compact, and cut whatever blocks are biggest until it does (`shrink`). A request known not to
fit is never sent. When the API still says "too long" (the estimate was off), the estimate is
corrected from its answer (and kept in the session file for its resumes) and the request made
to fit again, a few times at most. The prompt that started the turn is never cut: past the
window, the turn ends "Prompt is too long" and the prompt is taken back. It is written to the
session file only once a request that holds it is sent (`History.release_prompt`).

What is sent changes; what is stored does not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from tether.core.compaction import is_prompt_too_long, needs_compaction
from tether.core.compactor import compact
from tether.core.history import History
from tether.core.micro import CompactionPolicy, micro_compact
from tether.core.model_call import call_model
from tether.core.reply_fit import fit_reply
from tether.core.sizing import ATTEMPTS, PromptTooLong, fitted
from tether.models.base import ModelRequest, ResponseDone
from tether.protocol import Event, ModelError, StatusChanged

if TYPE_CHECKING:
    from tether.core.loop import Agent


async def call_within_window(
    agent: Agent, history: History, request: ModelRequest, emit: Callable[[Event], None]
) -> ResponseDone:
    """Send `request` (the history's view) made to fit the window; see the module's doc."""
    if agent.compaction is None:
        history.prompt_sent()
        emit(StatusChanged(status="requesting"))
        return await call_model(agent.model, request, emit, agent.retry)
    policy = agent.compaction.policy
    sizer = history.sizer
    if needs_compaction(history.last_usage, policy) and await compact(
        agent, history, request, emit
    ):
        request = replace(request, messages=history.view())
    sent = _as_sent(request, history, policy)
    window = sizer.window(policy.window)
    if not sizer.fits(sent, window) and await compact(agent, history, request, emit):
        request = replace(request, messages=history.view())
        sent = _as_sent(request, history, policy)
    for attempt in range(1, ATTEMPTS + 1):
        # Cut to the compaction's target, under its threshold: the next turn has room.
        sent = fitted(
            sent,
            sizer,
            sizer.window(policy.window),
            aim=policy.target,
            parts=agent.system_parts,
            prompt=history.turn_blocks,
        )
        sent = fit_reply(agent, sent, sizer)
        history.prompt_sent()  # it fits: sent, so kept in the session file
        emit(StatusChanged(status="requesting"))
        try:
            response = await call_model(agent.model, sent, emit, agent.retry)
        except ModelError as e:
            if not is_prompt_too_long(e):
                raise
            if attempt == ATTEMPTS:
                window = sizer.window(policy.window)
                tokens = sizer.tokens(sent)
                room = sent.max_tokens if _reply_room_refused(str(e)) else None
                raise PromptTooLong(tokens + (room or 0), window, reply_room=room) from e
            history.refused_as_too_long(agent.model_id, sent, str(e))
            if attempt == 1 and await compact(agent, history, request, emit):
                request = replace(request, messages=history.view())
                sent = _as_sent(request, history, policy)
            continue
        cut = sent.messages is not request.messages  # not what the history's messages say
        history.measured(agent.model_id, sent, response.usage, sizer.window(policy.window), cut)
        return response
    raise AssertionError("unreachable: the last attempt returns or raises")


def _as_sent(request: ModelRequest, history: History, policy: CompactionPolicy) -> ModelRequest:
    """Old bulky results as notes once the window is pressed; once notes were sent, they
    keep being sent, so the cached prefix stays the same."""
    usage, memo = history.last_usage, history.micro_memo
    pressed = usage is not None and usage.context_tokens >= policy.micro_from * policy.window
    if not (pressed or memo):
        return request
    return replace(request, messages=micro_compact(request.messages, policy, memo=memo))


def _reply_room_refused(message: str) -> bool:
    """Whether a refusal as too long counts the reply's room (`max_tokens`) in the window,
    in vLLM's words ("... M in the completion", "'max_tokens' ... is too large")."""
    said = message.lower()
    return "in the completion" in said or ("max_tokens" in said and "too large" in said)
