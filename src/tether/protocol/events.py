"""Events that flow out of a session. Front ends match on `kind`; they never read the history."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol.messages import Message, StopReason, Usage


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)


class SessionStarted(_Event):
    kind: Literal["session_started"] = "session_started"
    session_id: str
    model: str
    cwd: str
    tools: tuple[str, ...]


class TurnStarted(_Event):
    kind: Literal["turn_started"] = "turn_started"
    prompt: str


class TextDelta(_Event):
    kind: Literal["text_delta"] = "text_delta"
    text: str


class ThinkingDelta(_Event):
    kind: Literal["thinking_delta"] = "thinking_delta"
    text: str


class MessageCompleted(_Event):
    """A message was added to the history: an assistant reply or a user message of results."""

    kind: Literal["message_completed"] = "message_completed"
    message: Message
    usage: Usage | None = None


class ToolStarted(_Event):
    kind: Literal["tool_started"] = "tool_started"
    call_id: str
    name: str
    input: dict[str, Any]


class ToolFinished(_Event):
    kind: Literal["tool_finished"] = "tool_finished"
    call_id: str
    name: str
    content: str
    is_error: bool
    diff: str | None = Field(
        default=None, description="Unified diff of a file change, for display."
    )
    duration_ms: int = 0


class ModelRetry(_Event):
    """A model call failed in a way worth retrying; the next attempt starts after `delay_s`."""

    kind: Literal["model_retry"] = "model_retry"
    attempt: int
    max_attempts: int
    delay_s: float
    reason: str


class ModelWaiting(_Event):
    """The model endpoint has sent nothing for `waited_s` seconds; the attempt is given up (and
    retried) once that reaches `limit_s`."""

    kind: Literal["model_waiting"] = "model_waiting"
    waited_s: float
    limit_s: float


class Notice(_Event):
    kind: Literal["notice"] = "notice"
    level: Literal["info", "warning"] = "info"
    message: str


class ErrorOccurred(_Event):
    kind: Literal["error"] = "error"
    message: str


class PermissionAsked(_Event):
    """A tool call needs the user's approval; answer with the `PermissionAnswer` op."""

    kind: Literal["permission_asked"] = "permission_asked"
    request_id: str
    call_id: str
    tool: str
    input: dict[str, Any]
    reason: str
    suggestion: str | None = Field(
        default=None, description="The rule an 'always allow' answer would add."
    )


class PermissionDenial(BaseModel):
    """A call that did not run because it was denied (by a rule, a hook, or the user)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    tool_name: str
    tool_use_id: str
    tool_input: dict[str, Any]
    reason: str


TurnSubtype = Literal[
    "success", "error_max_turns", "error_max_budget_usd", "error_during_execution"
]


class TurnFinished(_Event):
    kind: Literal["turn_finished"] = "turn_finished"
    subtype: TurnSubtype
    is_error: bool
    result: str
    stop_reason: StopReason | None
    num_turns: int
    usage: Usage
    cost_usd: float
    duration_ms: int
    duration_api_ms: int
    error: str | None = None
    permission_denials: tuple[PermissionDenial, ...] = ()


Event = Annotated[
    SessionStarted
    | TurnStarted
    | TextDelta
    | ThinkingDelta
    | MessageCompleted
    | ToolStarted
    | ToolFinished
    | ModelRetry
    | ModelWaiting
    | Notice
    | PermissionAsked
    | ErrorOccurred
    | TurnFinished,
    Field(discriminator="kind"),
]
