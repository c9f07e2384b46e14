"""A turn's conversation: the prompt's hooks, the prompt sent with the listings and hooks'
context, the loop, and the loop again while an answer is owed (`Session.answer_checks`) or a
Stop hook sends the model back to work; an interruption marked as Claude Code marks it; the
turn's `TurnFinished`."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence

from tether.core import turn_stop
from tether.core.gate import Asker
from tether.core.history import History
from tether.core.lifecycle import MAX_OWED_REMINDERS, Lifecycle, reminder, stop_feedback_told
from tether.core.loop import INTERRUPTED, Agent, TurnStats, answer_all, run_tools, run_turn
from tether.core.sizing import DoesNotFit, PromptTooLong, taken_back
from tether.outside_text import error_summary
from tether.protocol import (
    ErrorOccurred,
    Event,
    HarnessError,
    Message,
    MessageCompleted,
    ModelError,
    Notice,
    PromptWithdrawn,
    TextBlock,
    TurnFinished,
    TurnSubtype,
    Usage,
    UserInput,
)

HOOK_TEXT_LEAD = "The text below is the output of a hook, not a message from the user."
"""Claude Code's first line of a hook's words kept in the conversation."""
INTERRUPTED_MARK = "[Request interrupted by user]"
INTERRUPTED_TOOLS_MARK = "[Request interrupted by user for tool use]"
"""What the conversation says of a turn the user interrupted, as in Claude Code."""

Emit = Callable[[Event | None], None]


async def converse(
    agent: Agent,
    history: History,
    lifecycle: Lifecycle,
    prompt: UserInput,
    stats: TurnStats,
    emit: Emit,
    *,
    ask: Asker | None,
    listings: Sequence[Callable[[], str | None]],
    answer_checks: Sequence[Callable[[], str | None]],
    kept: Callable[[], None],
    withdrawn: Callable[[], None],
) -> TurnSubtype:
    """The prompt's hooks, then the loop, continued while a Stop hook sends the model back
    to work. `kept` is called once the prompt is in the history, `withdrawn` once it is
    taken back out of it (refused as too long before it was sent: `PromptTooLong`, said
    with `PromptTooLong.withdrawn`, and emitted as `PromptWithdrawn`)."""
    text = prompt.text
    blocked, contexts, stopped = await lifecycle.before_prompt(text, emit)
    said = prompt.content or (TextBlock(text=text),)
    if blocked is not None and stopped:
        # As Claude Code: the prompt is kept, with the hook's words after it, for the next
        # request to carry; none is sent now, and the turn ends with no terminal reason.
        stats.result, stats.terminal_reason = f"Operation stopped by hook: {blocked}", ""
        told = TextBlock(text=reminder(f"{HOOK_TEXT_LEAD}\n{stats.result}"))
        listed = _listed(history, listings)
        history.add_user([*listed, *(TextBlock(text=reminder(c)) for c in contexts), *said, told])
        kept()
        emit(Notice(level="warning", message=stats.result, blocked_reason=blocked, kept=True))
        return "success"
    if blocked is not None:
        # As Claude Code: the prompt is dropped (never sent, never kept) and the turn ends
        # as a success that says why.
        stats.result = (
            f"UserPromptSubmit operation blocked by hook:\n{blocked}\n\nOriginal prompt: {text}"
        )
        emit(Notice(level="warning", message=stats.result, blocked_reason=blocked))
        return "success"
    left = history.unanswered_tool_uses()
    if left:  # calls a killed run left, resumed to run again (`Tool.rerun_after_crash`)
        await run_tools(agent, left, history, stats, emit, ask)
    # The listings and hooks' context first (as Claude Code's attachments), then the prompt.
    listed = _listed(history, listings)
    blocks = [*listed, *(TextBlock(text=reminder(c)) for c in contexts), *said]
    held = history.newest
    before = len(held.content) if held is not None and held.role == "user" else 0
    if prompt.typed is not None and (title_by := getattr(history.journal, "title_by", None)):
        title_by(prompt.typed)  # what the user typed titles the session, not its expansion
    added = history.add_prompt(blocks, entry_uuid=prompt.uuid)
    history.turn_blocks = added.content[before:]
    kept()
    try:
        subtype = await run_turn(agent, history, stats, emit, ask)
    except (PromptTooLong, DoesNotFit) as e:
        # Too long to send, known before or said by the endpoint: taken back, so that
        # neither the next prompt nor a resumed session carries it.
        taken = history.take_back()
        if taken is None:
            raise
        withdrawn()
        refusal = taken_back(e, taken)
        # The event log holds the prompt (`TurnStarted`): it says it was taken back, as the
        # session file does (or holds nothing of it).
        emit(PromptWithdrawn(prompt=text, taken=taken, reason=str(e).partition("\n")[0]))
        raise refusal from None
    except BaseException:
        history.release_prompt()  # kept as it was given: the turn ended for another reason
        raise
    for _ in range(MAX_OWED_REMINDERS):
        owed = _owed(answer_checks) if subtype == "success" and not turn_stop.halted() else None
        if owed is None:
            break
        reminder_owed = [TextBlock(text=owed)]
        history.add_user(reminder_owed)
        emit(MessageCompleted(message=Message(role="user", content=tuple(reminder_owed))))
        subtype = await run_turn(agent, history, stats, emit, ask)
    continuations = 0
    while subtype == "success":
        halted_before = turn_stop.halted()
        feedback = await lifecycle.on_stop(emit, continuations, stats.result)
        if turn_stop.halted() and not halted_before:
            stats.terminal_reason = "stop_hook_prevented"  # Claude Code's words for it
            # The model is told why at the next request, ahead of the next prompt, as
            # Claude Code tells it.
            request = turn_stop.requested()
            why = (request and request.reason) or "Stop hook prevented continuation"
            history.add_user([TextBlock(text=reminder(f"Stop hook stopped continuation: {why}"))])
        if not feedback or turn_stop.halted():
            break  # a hook's `continue: false` wins over a request to go on
        turn_stop.resume()
        continuations += 1
        # The client is shown it too, and counts it as a turn, as Claude Code's does.
        told = (TextBlock(text=stop_feedback_told(feedback)),)
        history.add_user(told)
        emit(
            MessageCompleted(message=Message(role="user", content=told), synthetic="stop_feedback")
        )
        subtype = await run_turn(agent, history, stats, emit, ask)
    return subtype


def _listed(history: History, listings: Sequence[Callable[[], str | None]]) -> list[TextBlock]:
    """The listings the conversation does not hold as they are now."""
    held = {
        block.text
        for message in history.view()
        if message.role == "user"
        for block in message.content
        if isinstance(block, TextBlock)
    }
    texts = (reminder(text) for listing in listings if (text := listing()) is not None)
    return [TextBlock(text=text) for text in texts if text not in held]


def _owed(answer_checks: Sequence[Callable[[], str | None]]) -> str | None:
    """What an answer check says the model still owes, if any (see `answer_checks`)."""
    for check in answer_checks:
        owed = check()
        if owed is not None:
            return owed
    return None


def mark_interruption(history: History, emit: Emit, *, while_speaking: bool = False) -> None:
    """As Claude Code: the calls not answered yet are answered as interrupted, each result
    shown as any, and the conversation says the user interrupted (the model reads it at the
    next turn), while the model spoke or during the tools' work (`while_speaking` False, and
    the newest message answers calls)."""
    answer_all(history, emit, INTERRUPTED)
    newest = history.newest
    during_tools = newest is not None and newest.role == "user" and bool(newest.tool_results())
    tools_mark = during_tools and not while_speaking
    mark = [TextBlock(text=INTERRUPTED_TOOLS_MARK if tools_mark else INTERRUPTED_MARK)]
    history.add_user(mark)
    emit(MessageCompleted(message=Message(role="user", content=tuple(mark))))  # what was added


ApiError = tuple[int | None, str | None, str | None]
"""An API error's status, the API's name for it and its message (all None: none)."""
NO_API_ERROR: ApiError = (None, None, None)


def turn_finished(
    stats: TurnStats,
    subtype: TurnSubtype,
    error: str | None,
    api_error: ApiError,
    *,
    usage: Usage,
    cost_usd: float,
    started: float,
) -> TurnFinished:
    """The turn's end: its outcome (`error` wins over `subtype`), spend and timings;
    `started` is the `time.perf_counter()` the turn began at."""
    return TurnFinished(
        subtype=subtype if error is None else "error_during_execution",
        is_error=error is not None or subtype != "success",
        result=stats.result if error is None else error,
        stop_reason=stats.stop_reason,
        num_turns=stats.num_turns,
        usage=usage,
        cost_usd=cost_usd,
        duration_ms=int((time.perf_counter() - started) * 1000),
        duration_api_ms=stats.api_ms,
        error=error,
        permission_denials=tuple(stats.denials),
        ttft_ms=None
        if stats.first_response_at is None
        else int((stats.first_response_at - started) * 1000),
        api_error_status=api_error[0],
        api_error_type=api_error[1],
        api_error_message=api_error[2],
        terminal_reason=stats.terminal_reason if error is None else None,
    )


async def turn_failed(
    error: Exception, lifecycle: Lifecycle, stats: TurnStats, emit: Callable[[Event], None]
) -> tuple[str, ApiError]:
    """A turn that stopped on `error`, told: its error and the API's status and error type (for
    the result), StopFailure hooks run for a model's error. Anything but a `HarnessError` is a
    bug, not a condition: said loudly, with the traceback (the session is kept)."""
    if not isinstance(error, HarnessError):
        message = f"internal error: {error_summary(error)}"
        emit(ErrorOccurred(message=f"{message}\n{traceback.format_exc()}"))
        return message, NO_API_ERROR
    api_error = NO_API_ERROR
    if isinstance(error, ModelError) and error.status is not None and error.status >= 400:
        api_error = (error.status, error.error_type, error.api_message)
    emit(ErrorOccurred(message=str(error)))
    if isinstance(error, ModelError):
        await lifecycle.on_failure(error, stats.result, emit)
    return str(error), api_error
