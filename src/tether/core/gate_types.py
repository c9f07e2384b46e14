"""The gate's vocabulary: its answer for a call (`Approval`), where its rules come from
(`RuleSources`), how it asks the user (`Asker`), and how hooks' and rules' words reach the
model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from tether.hooks import HookEventName, HookOutcome
from tether.permissions import Decision
from tether.permissions.rules import RuleKind
from tether.protocol import PermissionAnswer, PermissionAsked, PermissionDenial, ToolUseBlock
from tether.slotted import Slotted

Asker = Callable[[PermissionAsked], Awaitable[PermissionAnswer]]
Precheck = Callable[[dict[str, Any]], str | None]
"""Why a call could not run even if approved (the tool's own preconditions), or None."""


class Approval(Slotted):
    __slots__ = (
        "allowed",
        "context",
        "denial",
        "message",
        "stopped",
        "tool_input",
        "user_modified",
    )
    allowed: Final[bool]
    tool_input: Final[dict[str, Any]]
    message: Final[str]
    """Why not, for the model, when not allowed."""
    denial: Final[PermissionDenial | None]
    context: Final[tuple[str, ...]]
    """What PreToolUse hooks added for the model (`additionalContext`), given beside the
    call's result."""
    user_modified: Final[bool]
    """The user allowed the call with an input of their own (its result says so)."""
    stopped: Final[tuple[str, ...]]
    """Why a PreToolUse hook's `continue: false` stopped the turn, for the model at the end
    of the call's result, as Claude Code tells it."""

    def __init__(
        self,
        allowed: bool,
        tool_input: dict[str, Any],
        message: str = "",
        denial: PermissionDenial | None = None,
        context: tuple[str, ...] = (),
        user_modified: bool = False,
        stopped: tuple[str, ...] = (),
    ) -> None:
        self.allowed = allowed
        self.stopped = stopped
        self.tool_input = tool_input
        self.message = message
        self.denial = denial
        self.context = context
        self.user_modified = user_modified


@dataclass
class RuleSources:
    """Where the rules came from, so an 'always allow' can rebuild them with one more."""

    layers: Sequence[tuple[Path, Mapping[str, Any]]] = ()
    seed_yaml: Path | None = None
    seed_allow: bool = True
    """False in an untrusted workspace: the seed file's allow patterns are left out."""
    extra_allow: list[str] = field(default_factory=list[str])
    extra_deny: list[str] = field(default_factory=list[str])
    session: dict[RuleKind, list[str]] = field(default_factory=dict[RuleKind, list[str]])
    """Rules a client's permission updates gave this session, by behavior."""


def hook_context(event: HookEventName, subject: str, outcome: HookOutcome) -> tuple[str, ...]:
    """The `additionalContext` of an event's hooks, each said whose it is (as Claude Code
    gives it to the model)."""
    return tuple(
        f"{event}:{subject} hook additional context: {text}" for text in outcome.additional_context
    )


PRE_STOP_DEFAULT = "Execution stopped by hook"
POST_STOP_DEFAULT = "Execution stopped by PostToolUse hook"
"""What the model is told stopped its turn when a tool's hook gave `continue: false` without
a `stopReason` (Claude Code's words)."""


def stopped_note(hook_name: str, reason: str) -> str:
    """Why a hook (`hook_name`, `<event>:<tool>`) stopped the turn, as the model reads it at
    the end of the call's result."""
    return f"{hook_name} hook stopped continuation: {reason}"


def pre_hook_words(call: ToolUseBlock, hook: HookOutcome) -> dict[str, tuple[str, ...]]:
    """What a call's PreToolUse hooks say to the model, as `Approval` fields: their context,
    and why their `continue: false` stopped the turn."""
    name = f"PreToolUse:{call.name}"
    stopped = (stopped_note(name, hook.stop_reason or PRE_STOP_DEFAULT),) if hook.stop else ()
    return {"context": hook_context("PreToolUse", call.name, hook), "stopped": stopped}


def denied_text(decision: Decision) -> str:
    rule = f" (rule {decision.rule})" if decision.rule else ""
    return f"Permission denied{rule}: {decision.reason}"
