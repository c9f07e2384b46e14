"""One tool call, from permission to result: gate, run, post-hooks, events."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tether.core.gate import Approval, Asker
from tether.protocol import (
    Event,
    PermissionDenial,
    ToolFinished,
    ToolResultBlock,
    ToolStarted,
    ToolUseBlock,
)

if TYPE_CHECKING:
    from tether.core.loop import Agent


async def run_call(
    agent: Agent,
    call: ToolUseBlock,
    emit: Callable[[Event], None],
    ask: Asker | None,
    denials: list[PermissionDenial],
) -> ToolResultBlock:
    """Authorize and run one call; a denial becomes an error result the model reads."""
    emit(ToolStarted(call_id=call.id, name=call.name, input=call.input))
    approval = (
        await agent.gate.authorize(call, emit, ask)
        if agent.gate is not None
        else Approval(True, dict(call.input))
    )
    if not approval.allowed:
        if approval.denial is not None:
            denials.append(approval.denial)
        emit(ToolFinished(call_id=call.id, name=call.name, content=approval.message, is_error=True))
        return ToolResultBlock(tool_use_id=call.id, content=approval.message, is_error=True)
    if approval.tool_input != call.input:
        call = call.model_copy(update={"input": approval.tool_input})
    outcome = await agent.tools.run(call, agent.tool_context)
    content = outcome.content
    if agent.gate is not None:
        notes = await agent.gate.after(call, approval.tool_input, content, outcome.is_error, emit)
        if notes:
            content = f"{content}\n\n{notes}"
    emit(
        ToolFinished(
            call_id=call.id,
            name=call.name,
            content=content,
            is_error=outcome.is_error,
            diff=outcome.diff,
            duration_ms=outcome.duration_ms,
        )
    )
    return ToolResultBlock(tool_use_id=call.id, content=content, is_error=outcome.is_error)
