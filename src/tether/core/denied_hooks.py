"""PermissionDenied hooks: told of a call the permission mode refused on its own.

Claude Code fires PermissionDenied when its auto mode's classifier refuses a call, nobody having
been asked; tether's counterpart is a refusal the mode decides by itself (`dontAsk`, plan mode,
a call nobody is there to be asked about). A refusal by a rule the user wrote, by a hook or by
the user is not one. A hook answering `retry: true` lets the model know it may try again."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tether.core.gate_types import Approval
from tether.core.lifecycle import surface
from tether.protocol import Event, ToolUseBlock
from tether.slotted import replaced

if TYPE_CHECKING:
    from tether.hooks import HookRunner

RETRY_NOTE = "A PermissionDenied hook says this call may be tried again."


async def tell_denied(
    hooks: HookRunner | None,
    subagent: Mapping[str, str],
    call: ToolUseBlock,
    approval: Approval,
    emit: Callable[[Event], None],
) -> Approval:
    """Fire PermissionDenied for a refusal the mode decided; the approval, with the retry
    note when a hook asked for it."""
    denial = approval.denial
    if hooks is None or denial is None or denial.decided_by != "mode":
        return approval
    if not hooks.has("PermissionDenied"):
        return approval
    payload: dict[str, Any] = {
        **subagent,
        "tool_name": call.name,
        "tool_input": approval.tool_input,
        "tool_use_id": call.id,
        "reason": approval.message,
    }
    outcome = await hooks.fire("PermissionDenied", payload, match=call.name)
    surface(outcome, emit)
    if not outcome.retry:
        return approval
    return replaced(approval, message=f"{approval.message}\n{RETRY_NOTE}")
