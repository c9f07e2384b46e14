"""Running a compaction inside a session: when, with which hooks, and what is kept.

The pieces (where to cut, the summary request, the compacted transcript, the memory file) are
in `compaction`, `micro` and `memory`; this module puts them in order for the loop.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from tether.core.compaction import (
    PROMPTS_SHARE,
    CompactionPolicy,
    compacted_from,
    compacted_messages,
    cut_point,
    is_prompt_too_long,
    plan_cut,
    summarize,
    summary_instruction,
    summary_request,
)
from tether.core.history import History
from tether.core.lifecycle import reminder, surface
from tether.core.memory import append_memory
from tether.core.micro import micro_compact
from tether.core.reply_fit import fit_reply
from tether.core.sizing import ATTEMPTS, DoesNotFit, PromptTooLong, fitted
from tether.core.start_context import start_context
from tether.models.base import ModelRequest
from tether.protocol import (
    ContextCompacted,
    Event,
    HarnessError,
    Message,
    ModelError,
    Notice,
    StatusChanged,
    TextBlock,
)
from tether.slotted import Slotted, replaced
from tether.tools.plan import render_todos

if TYPE_CHECKING:
    from tether.core.loop import Agent


class Compaction(Slotted):
    """How a session compacts: the policy and where summaries are remembered."""

    __slots__ = ("memory_path", "policy")
    policy: Final[CompactionPolicy]
    memory_path: Final[Path | None]

    def __init__(self, policy: CompactionPolicy, memory_path: Path | None = None) -> None:
        self.policy = policy
        self.memory_path = memory_path


async def _summary(
    agent: Agent,
    history: History,
    request: ModelRequest,
    sent: tuple[Message, ...],
    view: tuple[Message, ...],
    focus: str | None,
    emit: Callable[[Event], None],
) -> str:
    """Ask for the summary with a request that fits: over what is sent (the cached prefix is
    reused), else over notes of every result, else with the biggest blocks cut. A request
    known not to fit is not sent; one refused as too long corrects the estimate."""
    assert agent.compaction is not None
    policy, sizer = agent.compaction.policy, history.sizer
    instruction = len(summary_instruction(focus)) + 100
    messages = sent
    base = dataclasses.replace(request, messages=sent)
    if not sizer.fits(base, sizer.window(policy.window), reserve_chars=instruction):
        # Even what is sent does not fit beside the instruction (a small window, big recent
        # results): summarise over notes of every result. The cached prefix is lost once.
        terse = replaced(policy, micro_keep_recent=0, micro_min_chars=0)
        messages = micro_compact(view, terse)
    for attempt in range(1, ATTEMPTS + 1):
        base = dataclasses.replace(request, messages=messages)
        window = sizer.window(policy.window)
        fit = fitted(base, sizer, window, reserve_chars=instruction, parts=agent.system_parts)
        messages = fit.messages
        asked = fit_reply(agent, summary_request(request, messages, focus), sizer)
        history.prompt_sent()  # the summary's request sends the conversation
        try:
            return await summarize(
                agent.model, asked, spent=agent.spend_aside, retry=agent.retry, emit=emit
            )
        except ModelError as e:
            if not is_prompt_too_long(e) or attempt == ATTEMPTS:
                raise
            history.refused_as_too_long(agent.model_id, asked, str(e))
    raise AssertionError("unreachable: the last attempt returns or raises")


async def compact_on_request(
    agent: Agent,
    history: History,
    request: ModelRequest,
    focus: str | None,
    *,
    at: int | None = None,
    part: str = "before",
) -> tuple[list[Event], bool]:
    """A compaction the user asked for (`/compact`, or one part of the conversation from the
    rewind menu: see `Compact`): what it said, and whether it happened."""
    events: list[Event] = []
    done = await compact(
        agent, history, request, events.append, trigger="manual", focus=focus, at=at, part=part
    )
    return events, done


def _part_focus(view: tuple[Message, ...], at: int, part: str, focus: str | None) -> str:
    """The summary's focus when only one part of the conversation is summarised."""
    words = " ".join(view[at].text().split())[:200]
    where = f"the user's message that begins {words!r}"
    said = (
        f"Summarise only the conversation from {where} on; what comes before it stays verbatim."
        if part == "from"
        else f"Summarise only the conversation before {where}; it and what follows stay verbatim."
    )
    return f"{said}\n{focus}" if focus else said


async def compact(
    agent: Agent,
    history: History,
    request: ModelRequest,
    emit: Callable[[Event], None],
    *,
    trigger: Literal["auto", "manual"] = "auto",
    focus: str | None = None,
    at: int | None = None,
    part: str = "before",
) -> bool:
    """Replace the older part of what is sent by a summary the model writes. Returns whether it
    happened; a failure keeps the whole history (it is tried again at the next threshold)."""
    assert agent.compaction is not None
    policy = agent.compaction.policy
    view = history.view()
    measured = history.last_usage.context_tokens if history.last_usage else policy.window
    cut = plan_cut(view, policy, measured) if at is None else at
    if at is not None:
        if not 0 <= at < len(view) or (part == "before" and at == 0):
            emit(Notice(level="warning", message="nothing to summarise there"))
            return False
        focus = _part_focus(view, at, part, focus)
    elif cut is None and trigger == "manual":
        # Asked of a conversation too short to keep its recent exchanges (one exchange): as
        # Claude Code, it compacts; only the newest exchange stays verbatim.
        cut = cut_point(view, 1)
    if cut is None:
        return False
    hooks = agent.gate.hooks if agent.gate is not None else None
    if hooks is not None and hooks.has("PreCompact"):
        outcome = await hooks.fire(
            "PreCompact", {"trigger": trigger, "custom_instructions": focus or ""}, match=trigger
        )
        if outcome.blocked:
            emit(Notice(level="warning", message=f"compaction skipped: {outcome.reason}"))
            return False
    emit(StatusChanged(status="compacting"))
    done = False
    try:
        done = await _compact_now(
            agent, history, request, emit, view, cut, trigger, focus, part if at is not None else ""
        )
    finally:
        if not done:  # a success says so itself, before its boundary (as Claude Code)
            emit(StatusChanged(status=None, compact_result="failed"))
    return done


async def _compact_now(
    agent: Agent,
    history: History,
    request: ModelRequest,
    emit: Callable[[Event], None],
    view: tuple[Message, ...],
    cut: int,
    trigger: Literal["auto", "manual"],
    focus: str | None,
    part: str = "",
) -> bool:
    """Summarise `view[:cut]` (`part` "from": `view[cut:-1]`) and send that from now on."""
    assert agent.compaction is not None
    policy = agent.compaction.policy
    hooks = agent.gate.hooks if agent.gate is not None else None
    # Ask for the summary over what is actually sent (old bulky results as notes): it fits the
    # window, and it shares the cached prefix of the request before it.
    sent = micro_compact(view, policy, memo=history.micro_memo)
    try:
        summary = await _summary(agent, history, request, sent, view, focus, emit)
    except PromptTooLong:
        # The turn's prompt alone is past the window: kept verbatim by any compaction, so
        # none can help; said once, blaming the prompt, by the turn's end.
        raise
    except DoesNotFit as e:
        if e.fixed:  # nor can any request after it: said once, by the turn's end
            raise
        emit(Notice(level="warning", message=f"compaction failed, history kept whole: {e}"))
        return False
    except (ModelError, HarnessError) as e:
        emit(Notice(level="warning", message=f"compaction failed, history kept whole: {e}"))
        return False
    plan = render_todos(agent.tool_context.todos) if agent.tool_context.todos else None
    sizer = history.sizer
    prompt_chars = int(PROMPTS_SHARE * sizer.window(policy.window) * sizer.chars_per_token)
    extra: list[TextBlock] = []
    if hooks is not None and hooks.has("SessionStart"):
        # As Claude Code: the session starts again from the summary (source "compact"), and
        # what its hooks add is read with the summary.
        started = await hooks.fire("SessionStart", {"source": "compact"}, match="compact")
        surface(started, emit)
        extra = [TextBlock(text=reminder(told)) for told in start_context(started, "compact")]
    before = history.last_usage.context_tokens if history.last_usage else sizer.tokens(request)
    try:
        compacted = (
            compacted_from(view, cut, summary, prompt_chars=prompt_chars)
            if part == "from"
            else compacted_messages(
                view, cut, summary, plan=plan, prompt_chars=prompt_chars, extra=extra
            )
        )
        history.compact_to(view, compacted)
    except ValueError as e:  # a cut the history cannot take: never the end of the turn
        emit(Notice(level="warning", message=f"compaction failed, history kept whole: {e}"))
        return False
    history.last_usage = None
    if agent.compaction.memory_path is not None:
        when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        try:
            append_memory(agent.compaction.memory_path, summary, when=when)
        except (OSError, UnicodeError) as e:  # a full disk, a file not in UTF-8
            reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            where = agent.compaction.memory_path
            # The compaction stands (the history is whole); only the memory file misses it.
            emit(Notice(level="warning", message=f"the summary was not added to {where}: {reason}"))
    emit(StatusChanged(status=None, compact_result="success"))
    emit(ContextCompacted(trigger=trigger, pre_tokens=before))
    summarised, kept = (len(view) - 1 - cut, cut + 1) if part == "from" else (cut, len(view) - cut)
    where = "from the chosen one on" if part == "from" else "earlier"
    emit(
        Notice(
            message=f"context compacted ({trigger}): {summarised} messages {where} summarised, "
            f"{kept} kept verbatim"
        )
    )
    if hooks is not None and hooks.has("PostCompact"):
        payload = {"trigger": trigger, "compact_summary": summary}
        await hooks.fire("PostCompact", payload, match=trigger)
    return True
