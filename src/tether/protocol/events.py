"""Events that flow out of a session. Front ends match on `kind`; they never read the history."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol.messages import ContentBlock, Message, StopReason, Usage


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


class ToolInputDelta(_Event):
    """A tool call's input as the model writes it (for display only): `partial_json` None
    when the call's block opens, then its JSON text piece by piece. The call runs from the
    completed message, never from these."""

    kind: Literal["tool_input_delta"] = "tool_input_delta"
    call_id: str
    name: str
    partial_json: str | None = None


class ResponseStarted(_Event):
    """The model's response began (before its first text): the ids the endpoint gave it and
    the usage known at its start (input and cache counts, where the endpoint says them then).
    An attempt given up later (`ModelRetry`) is followed by the next attempt's."""

    kind: Literal["response_started"] = "response_started"
    model: str
    message_id: str | None = Field(default=None, description="The endpoint's id of the message.")
    request_id: str | None = Field(default=None, description="The endpoint's id of the request.")
    usage: Usage = Field(default_factory=Usage)
    ttft_ms: int = Field(description="Milliseconds from the attempt's request to this start.")


class BlockCompleted(_Event):
    """One content block of the assistant reply being streamed is complete (the reply is
    not yet): for front ends that show each block as it closes. `MessageCompleted` still
    carries the whole reply."""

    kind: Literal["block_completed"] = "block_completed"
    block: ContentBlock
    model: str
    entry_uuid: str = Field(
        default="", description="The uuid of the block's entry in the session file."
    )


class MessageCompleted(_Event):
    """A message was added to the history: an assistant reply or a user message of results."""

    kind: Literal["message_completed"] = "message_completed"
    message: Message
    usage: Usage | None = None
    model: str | None = Field(default=None, description="The model that wrote an assistant reply.")
    stop_reason: StopReason | None = None
    cost_usd: float = Field(default=0.0, description="What the model call of a reply cost.")
    message_id: str | None = Field(
        default=None, description="The endpoint's id of a reply (as its `ResponseStarted`)."
    )
    request_id: str | None = Field(
        default=None, description="The endpoint's id of the request that got a reply."
    )
    entry_uuids: tuple[str, ...] = Field(
        default=(),
        description=(
            "The message's entries in the session file: a reply's, one per content block; a "
            "message of tool results', one per result."
        ),
    )
    synthetic: Literal["output_limit", "refusal"] | None = Field(
        default=None,
        description=(
            "A note tether added so that the model goes on after a reply it could not finish "
            "(cut at the output limit, stopped by a refusal): Claude Code's synthetic message."
        ),
    )


DenialSource = Literal["rule", "mode", "hook", "user"]


class PermissionDenial(BaseModel):
    """A call that did not run because it was denied (by a rule, a hook, or the user)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    tool_name: str
    tool_use_id: str
    tool_input: dict[str, Any]
    reason: str
    decided_by: DenialSource
    """What denied it: a deny rule, the permission mode (dontAsk, plan, nobody to ask), a
    hook, or the user (or the client answering for them)."""


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
    structured: Any = Field(
        default=None,
        description="What the call did, as JSON data in Claude Code's shape for the tool "
        "(its `tool_use_result`); None for an error, or a tool whose text says it all.",
    )
    denial: PermissionDenial | None = Field(
        default=None, description="Why the call did not run, when it was denied."
    )


class SubagentStarted(_Event):
    """A subagent began working for the tool call `call_id` (a Task call)."""

    kind: Literal["subagent_started"] = "subagent_started"
    call_id: str
    agent_id: str
    agent_type: str
    description: str
    prompt: str
    parent_agent_id: str | None = Field(
        default=None,
        description="The subagent that started this one (a nested subagent); None when the "
        "session's own agent did.",
    )


class SubagentMessage(_Event):
    """A message a subagent added to its own history: its work, streamed to front ends that show
    it (the SDK's `parent_tool_use_id`). It never enters the calling agent's conversation."""

    kind: Literal["subagent_message"] = "subagent_message"
    call_id: str
    agent_id: str
    agent_type: str
    completed: MessageCompleted
    parent_agent_id: str | None = Field(
        default=None,
        description="The subagent that started this one (a nested subagent); None when the "
        "session's own agent did.",
    )


class SubagentFinished(_Event):
    """A subagent ended: `status` says how, `summary` is its final text or why it stopped."""

    kind: Literal["subagent_finished"] = "subagent_finished"
    call_id: str
    agent_id: str
    status: Literal["completed", "failed", "stopped"]
    summary: str
    usage: Usage
    tool_uses: int
    duration_ms: int
    parent_agent_id: str | None = Field(
        default=None,
        description="The subagent that started this one (a nested subagent); None when the "
        "session's own agent did.",
    )


class ModelRetry(_Event):
    """A model call failed in a way worth retrying; the next attempt starts after `delay_s`."""

    kind: Literal["model_retry"] = "model_retry"
    attempt: int
    max_attempts: int
    delay_s: float
    reason: str
    status: int | None = Field(
        default=None, description="The HTTP status of the failure; None when none came back."
    )


class ModelWaiting(_Event):
    """The model endpoint has sent nothing for `waited_s` seconds; the attempt is given up (and
    retried) once that reaches `limit_s`."""

    kind: Literal["model_waiting"] = "model_waiting"
    waited_s: float
    limit_s: float
    pings_only: bool = False
    """The endpoint sent keep-alives (pings) meanwhile, nothing of an answer."""


class Notice(_Event):
    kind: Literal["notice"] = "notice"
    level: Literal["info", "warning"] = "info"
    message: str


class ContextCompacted(_Event):
    """The earlier conversation was replaced by a summary (a `Notice` says it in words)."""

    kind: Literal["context_compacted"] = "context_compacted"
    trigger: Literal["auto", "manual"]
    pre_tokens: int
    """The context's size before, as last measured (or estimated)."""


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
    suggestions: list[dict[str, Any]] = Field(
        default_factory=list[dict[str, Any]],
        description="Claude Code's permission updates offered for this call (the rule, a "
        "directory, a mode), as a client or a PermissionRequest hook reads them.",
    )
    by_mode: bool = Field(
        default=False, description="Asked because of the permission mode (plan), not a rule."
    )
    agent_id: str | None = Field(
        default=None, description="The subagent whose call it is; None: the session's agent."
    )


TurnSubtype = Literal[
    "success",
    "error_max_turns",
    "error_max_budget_usd",
    "error_max_structured_output_retries",
    "error_during_execution",
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
    ttft_ms: int | None = Field(
        default=None, description="Milliseconds from the turn's start to its first response's."
    )
    api_error_status: int | None = None
    """The HTTP status of the model API's refusal that ended the turn (after retries)."""
    api_error_type: str | None = None
    """The API's own name for that error (`invalid_request_error`...), when it gave one."""


Event = Annotated[
    SessionStarted
    | TurnStarted
    | TextDelta
    | ThinkingDelta
    | ToolInputDelta
    | ResponseStarted
    | BlockCompleted
    | MessageCompleted
    | ToolStarted
    | ToolFinished
    | SubagentStarted
    | SubagentMessage
    | SubagentFinished
    | ModelRetry
    | ModelWaiting
    | Notice
    | ContextCompacted
    | PermissionAsked
    | ErrorOccurred
    | TurnFinished,
    Field(discriminator="kind"),
]
