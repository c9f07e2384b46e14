"""Events that flow out of a session. Front ends match on `kind`; they never read the history."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from tether.protocol.messages import ContentBlock, Message, StopReason, Usage
from tether.protocol.record import Record, Tagged
from tether.protocol.status_events import (
    ContextCompacted,
    ErrorOccurred,
    ModelRetry,
    ModelWaiting,
    Notice,
    PromptWithdrawn,
    StatusChanged,
)
from tether.protocol.tool_events import (
    PermissionAsked,
    PermissionDenial,
    ToolFinished,
    ToolStarted,
)


class _Event(Record):
    __slots__ = ()


class SessionStarted(_Event):
    __slots__ = ("cwd", "kind", "model", "session_id", "tools")
    kind: Final[Literal["session_started"]]
    session_id: Final[str]
    model: Final[str]
    cwd: Final[str]
    tools: Final[tuple[str, ...]]

    def __init__(
        self,
        *,
        session_id: str,
        model: str,
        cwd: str,
        tools: tuple[str, ...],
        kind: Literal["session_started"] = "session_started",
    ) -> None:
        self.kind = kind
        self.session_id = session_id
        self.model = model
        self.cwd = cwd
        self.tools = tools


class TurnStarted(_Event):
    __slots__ = ("kind", "prompt")
    kind: Final[Literal["turn_started"]]
    prompt: Final[str]

    def __init__(self, *, prompt: str, kind: Literal["turn_started"] = "turn_started") -> None:
        self.kind = kind
        self.prompt = prompt


class TextDelta(_Event):
    __slots__ = ("kind", "text")
    kind: Final[Literal["text_delta"]]
    text: Final[str]

    def __init__(self, *, text: str, kind: Literal["text_delta"] = "text_delta") -> None:
        self.kind = kind
        self.text = text


class ThinkingDelta(_Event):
    __slots__ = ("kind", "text")
    kind: Final[Literal["thinking_delta"]]
    text: Final[str]

    def __init__(self, *, text: str, kind: Literal["thinking_delta"] = "thinking_delta") -> None:
        self.kind = kind
        self.text = text


class ToolInputDelta(_Event):
    """A tool call's input as the model writes it (for display only): `partial_json` None
    when the call's block opens, then its JSON text piece by piece. The call runs from the
    completed message, never from these."""

    __slots__ = ("call_id", "kind", "name", "partial_json")
    kind: Final[Literal["tool_input_delta"]]
    call_id: Final[str]
    name: Final[str]
    partial_json: Final[str | None]

    def __init__(
        self,
        *,
        call_id: str,
        name: str,
        kind: Literal["tool_input_delta"] = "tool_input_delta",
        partial_json: str | None = None,
    ) -> None:
        self.kind = kind
        self.call_id = call_id
        self.name = name
        self.partial_json = partial_json


class ResponseStarted(_Event):
    """The model's response began (before its first text): the ids the endpoint gave it and
    the usage known at its start (input and cache counts, where the endpoint says them then).
    An attempt given up later (`ModelRetry`) is followed by the next attempt's.

    `message_id`: The endpoint's id of the message.

    `request_id`: The endpoint's id of the request.

    `ttft_ms`: Milliseconds from the attempt's request to this start."""

    __slots__ = ("kind", "message_id", "model", "request_id", "ttft_ms", "usage")
    kind: Final[Literal["response_started"]]
    model: Final[str]
    message_id: Final[str | None]
    request_id: Final[str | None]
    usage: Final[Usage]
    ttft_ms: Final[int]

    def __init__(
        self,
        *,
        model: str,
        ttft_ms: int,
        kind: Literal["response_started"] = "response_started",
        message_id: str | None = None,
        request_id: str | None = None,
        usage: Usage | None = None,
    ) -> None:
        self.kind = kind
        self.model = model
        self.message_id = message_id
        self.request_id = request_id
        self.usage = Usage() if usage is None else usage
        self.ttft_ms = ttft_ms


class BlockCompleted(_Event):
    """One content block of the assistant reply being streamed is complete (the reply is
    not yet): for front ends that show each block as it closes. `MessageCompleted` still
    carries the whole reply.

    `entry_uuid`: The uuid of the block's entry in the session file."""

    __slots__ = ("block", "entry_uuid", "kind", "model")
    kind: Final[Literal["block_completed"]]
    block: Final[ContentBlock]
    model: Final[str]
    entry_uuid: Final[str]

    def __init__(
        self,
        *,
        block: ContentBlock,
        model: str,
        kind: Literal["block_completed"] = "block_completed",
        entry_uuid: str = "",
    ) -> None:
        self.kind = kind
        self.block = block
        self.model = model
        self.entry_uuid = entry_uuid


class MessageCompleted(_Event):
    """A message was added to the history: an assistant reply or a user message of results.

    `model`: The model that wrote an assistant reply.

    `cost_usd`: What the model call of a reply cost.

    `message_id`: The endpoint's id of a reply (as its `ResponseStarted`).

    `request_id`: The endpoint's id of the request that got a reply.

    `entry_uuids`: The message's entries in the session file: a reply's, one per content
    block; a message of tool results', one per result.

    `synthetic`: A note tether added so that the model goes on after a reply it could not
    finish (cut at the output limit, stopped by a refusal): Claude Code's synthetic message;
    or a Stop hook's feedback that sends it back to work (`stop_feedback`).

    `limits`: The context window and output cap the reply's call was made with (Claude Code's
    `modelUsage` says them per model)."""

    __slots__ = (
        "cost_usd",
        "entry_uuids",
        "kind",
        "limits",
        "message",
        "message_id",
        "model",
        "request_id",
        "stop_reason",
        "synthetic",
        "usage",
    )
    kind: Final[Literal["message_completed"]]
    message: Final[Message]
    usage: Final[Usage | None]
    model: Final[str | None]
    stop_reason: Final[StopReason | None]
    cost_usd: Final[float]
    message_id: Final[str | None]
    request_id: Final[str | None]
    entry_uuids: Final[tuple[str, ...]]
    synthetic: Final[Literal["output_limit", "refusal", "stop_feedback"] | None]
    limits: Final[tuple[int, int] | None]

    def __init__(
        self,
        *,
        message: Message,
        kind: Literal["message_completed"] = "message_completed",
        usage: Usage | None = None,
        model: str | None = None,
        stop_reason: StopReason | None = None,
        cost_usd: float = 0.0,
        message_id: str | None = None,
        request_id: str | None = None,
        entry_uuids: tuple[str, ...] = (),
        synthetic: Literal["output_limit", "refusal", "stop_feedback"] | None = None,
        limits: tuple[int, int] | None = None,
    ) -> None:
        self.kind = kind
        self.message = message
        self.usage = usage
        self.model = model
        self.stop_reason = stop_reason
        self.cost_usd = cost_usd
        self.message_id = message_id
        self.request_id = request_id
        self.entry_uuids = entry_uuids
        self.synthetic = synthetic
        self.limits = limits


class SubagentStarted(_Event):
    """A subagent began working for the tool call `call_id` (a Task call).

    `parent_agent_id`: The subagent that started this one (a nested subagent); None when the
    session's own agent did."""

    __slots__ = (
        "agent_id",
        "agent_type",
        "background",
        "call_id",
        "description",
        "kind",
        "output_file",
        "parent_agent_id",
        "prompt",
    )
    kind: Final[Literal["subagent_started"]]
    call_id: Final[str]
    agent_id: Final[str]
    agent_type: Final[str]
    description: Final[str]
    prompt: Final[str]
    parent_agent_id: Final[str | None]
    background: Final[bool]
    """Started with `run_in_background`: the Task call did not wait for it."""
    output_file: Final[str]
    """Where its transcript is written, "" when nowhere."""

    def __init__(
        self,
        *,
        call_id: str,
        agent_id: str,
        agent_type: str,
        description: str,
        prompt: str,
        kind: Literal["subagent_started"] = "subagent_started",
        parent_agent_id: str | None = None,
        background: bool = False,
        output_file: str = "",
    ) -> None:
        self.kind = kind
        self.call_id = call_id
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.description = description
        self.prompt = prompt
        self.parent_agent_id = parent_agent_id
        self.background = background
        self.output_file = output_file


class SubagentMessage(_Event):
    """A message a subagent added to its own history: its work, streamed to front ends that show
    it (the SDK's `parent_tool_use_id`). It never enters the calling agent's conversation.

    `parent_agent_id`: The subagent that started this one (a nested subagent); None when the
    session's own agent did."""

    __slots__ = ("agent_id", "agent_type", "call_id", "completed", "kind", "parent_agent_id")
    kind: Final[Literal["subagent_message"]]
    call_id: Final[str]
    agent_id: Final[str]
    agent_type: Final[str]
    completed: Final[MessageCompleted]
    parent_agent_id: Final[str | None]

    def __init__(
        self,
        *,
        call_id: str,
        agent_id: str,
        agent_type: str,
        completed: MessageCompleted,
        kind: Literal["subagent_message"] = "subagent_message",
        parent_agent_id: str | None = None,
    ) -> None:
        self.kind = kind
        self.call_id = call_id
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.completed = completed
        self.parent_agent_id = parent_agent_id


class SubagentFinished(_Event):
    """A subagent ended: `status` says how, `summary` is its final text or why it stopped.

    `parent_agent_id`: The subagent that started this one (a nested subagent); None when the
    session's own agent did."""

    __slots__ = (
        "agent_id",
        "call_id",
        "duration_ms",
        "kind",
        "parent_agent_id",
        "status",
        "summary",
        "tool_uses",
        "usage",
    )
    kind: Final[Literal["subagent_finished"]]
    call_id: Final[str]
    agent_id: Final[str]
    status: Final[Literal["completed", "failed", "stopped"]]
    summary: Final[str]
    usage: Final[Usage]
    tool_uses: Final[int]
    duration_ms: Final[int]
    parent_agent_id: Final[str | None]

    def __init__(
        self,
        *,
        call_id: str,
        agent_id: str,
        status: Literal["completed", "failed", "stopped"],
        summary: str,
        usage: Usage,
        tool_uses: int,
        duration_ms: int,
        kind: Literal["subagent_finished"] = "subagent_finished",
        parent_agent_id: str | None = None,
    ) -> None:
        self.kind = kind
        self.call_id = call_id
        self.agent_id = agent_id
        self.status = status
        self.summary = summary
        self.usage = usage
        self.tool_uses = tool_uses
        self.duration_ms = duration_ms
        self.parent_agent_id = parent_agent_id


TurnSubtype = Literal[
    "success",
    "error_max_turns",
    "error_max_budget_usd",
    "error_max_structured_output_retries",
    "error_during_execution",
]


class TurnFinished(_Event):
    """`ttft_ms`: Milliseconds from the turn's start to its first response's.

    `api_error_message`: What the API's error answer said, alone (`error` says it with where
    and how it failed)."""

    __slots__ = (
        "api_error_message",
        "api_error_status",
        "api_error_type",
        "cost_usd",
        "duration_api_ms",
        "duration_ms",
        "error",
        "is_error",
        "kind",
        "num_turns",
        "permission_denials",
        "result",
        "stop_reason",
        "subtype",
        "terminal_reason",
        "ttft_ms",
        "usage",
    )
    kind: Final[Literal["turn_finished"]]
    subtype: Final[TurnSubtype]
    is_error: Final[bool]
    result: Final[str]
    stop_reason: Final[StopReason | None]
    num_turns: Final[int]
    usage: Final[Usage]
    cost_usd: Final[float]
    duration_ms: Final[int]
    duration_api_ms: Final[int]
    error: Final[str | None]
    permission_denials: Final[tuple[PermissionDenial, ...]]
    ttft_ms: Final[int | None]
    api_error_status: Final[int | None]
    """The HTTP status of the model API's refusal that ended the turn (after retries)."""
    api_error_type: Final[str | None]
    api_error_message: Final[str | None]
    """The API's own name for that error (`invalid_request_error`...), when it gave one."""
    terminal_reason: Final[str | None]
    """Why a turn a hook ended, ended, in Claude Code's words: `hook_stopped` (a tool's hook
    answered `continue: false`), `stop_hook_prevented` (a Stop hook did); None: the subtype
    says it."""

    def __init__(
        self,
        *,
        subtype: TurnSubtype,
        is_error: bool,
        result: str,
        stop_reason: StopReason | None,
        num_turns: int,
        usage: Usage,
        cost_usd: float,
        duration_ms: int,
        duration_api_ms: int,
        kind: Literal["turn_finished"] = "turn_finished",
        error: str | None = None,
        permission_denials: tuple[PermissionDenial, ...] = (),
        ttft_ms: int | None = None,
        api_error_status: int | None = None,
        api_error_type: str | None = None,
        api_error_message: str | None = None,
        terminal_reason: str | None = None,
    ) -> None:
        self.kind = kind
        self.subtype = subtype
        self.terminal_reason = terminal_reason
        self.is_error = is_error
        self.result = result
        self.stop_reason = stop_reason
        self.num_turns = num_turns
        self.usage = usage
        self.cost_usd = cost_usd
        self.duration_ms = duration_ms
        self.duration_api_ms = duration_api_ms
        self.error = error
        self.permission_denials = permission_denials
        self.ttft_ms = ttft_ms
        self.api_error_status = api_error_status
        self.api_error_type = api_error_type
        self.api_error_message = api_error_message


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
    | PromptWithdrawn
    | ContextCompacted
    | StatusChanged
    | PermissionAsked
    | ErrorOccurred
    | TurnFinished,
    Tagged("kind"),
]
