"""The gate's hooks after calls ran: PostToolUse / PostToolUseFailure on each call (their
`tool_response` the tool's structured result; a hook may replace the output the model reads),
and PostToolBatch once every call of a response is answered."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tether.core import hook_output, turn_stop
from tether.core.gate_types import POST_STOP_DEFAULT, hook_context, stopped_note
from tether.core.lifecycle import surface
from tether.hooks import HookEventName
from tether.protocol import Event, Notice, ToolResultBlock, ToolUseBlock
from tether.tools.registry import ToolOutcome

if TYPE_CHECKING:
    from tether.hooks import HookRunner


async def post_tool_hooks(
    hooks: HookRunner | None,
    subagent: Mapping[str, str],
    call: ToolUseBlock,
    outcome: ToolOutcome,
    emit: Callable[[Event], None],
) -> tuple[ToolOutcome, tuple[str, ...]]:
    """PostToolUse / PostToolUseFailure hooks on the call as it ran; returns the outcome
    the model reads (a hook may replace the output) and what they said for the model
    (context, or the reason of a block), kept apart from the result."""
    event: HookEventName = "PostToolUseFailure" if outcome.is_error else "PostToolUse"
    if hooks is None or not hooks.has(event):
        return outcome, ()
    payload: dict[str, Any] = {
        **subagent,
        "tool_name": call.name,
        "tool_input": call.input,
        "tool_use_id": call.id,
    }
    if outcome.is_error:
        # The error itself, without the "Error: " the model reads before it.
        payload.update(error=outcome.content.removeprefix("Error: "), is_interrupt=False)
    else:
        response = outcome.structured
        payload["tool_response"] = response if response is not None else outcome.content
    payload["duration_ms"] = outcome.duration_ms
    hook = await hooks.fire(event, payload, match=call.name)
    surface(hook, emit)
    notes = list(hook_context(event, call.name, hook))
    if hook.stop:
        # As Claude Code: the model is told why its turn stopped, in place of the context.
        notes = [stopped_note(f"{event}:{call.name}", hook.stop_reason or POST_STOP_DEFAULT)]
    if hook.blocked and hook.reason:
        notes.insert(0, f"{event}:{call.name} hook blocking error: {hook.reason}")
    if hook.updated_output is not None:
        try:
            outcome = hook_output.replaced(call.name, outcome, hook.updated_output)
        except hook_output.Refused as e:
            emit(Notice(level="warning", message=f"hook: {e}; the tool's own output stands"))
    return outcome, tuple(notes)


async def post_batch_hooks(
    hooks: HookRunner | None,
    subagent: Mapping[str, str],
    calls: Sequence[ToolUseBlock],
    results: Sequence[ToolResultBlock],
    emit: Callable[[Event], None],
) -> tuple[str, ...]:
    """PostToolBatch hooks, once every call of a response is answered, before the next
    model call: each call with the result the model reads. As in Claude Code, a block or a
    `continue: false` ends the turn there; their `additionalContext` is for the model."""
    if hooks is None or not hooks.has("PostToolBatch"):
        return ()
    answered = [
        {
            **subagent,
            "tool_name": call.name,
            "tool_input": call.input,
            "tool_use_id": call.id,
            "tool_response": result.content,
        }
        for call, result in zip(calls, results, strict=True)
    ]
    hook = await hooks.fire("PostToolBatch", {**subagent, "tool_calls": answered})
    surface(hook, emit)
    if hook.blocked:
        why = hook.reason or "Execution stopped by PostToolBatch hook"
        turn_stop.request_stop(f"stopped by a PostToolBatch hook: {why}", by_hook=True)
    return tuple(f"PostToolBatch hook additional context: {c}" for c in hook.additional_context)
