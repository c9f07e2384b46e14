"""Script builders: what the fake model says, one turn per request.

A turn is a `Reply` (content blocks plus how to deliver them), a bare block (wrapped in a
`Reply`), an `HttpError`, or a callable that receives the `RecordedRequest` and returns one of
those, evaluated when the request arrives.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from tether.testing.recorded import RecordedRequest

StopReasonName = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "pause_turn",
    "refusal",
    "stop_sequence",
    "model_context_window_exceeded",
]

USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "thinking_tokens",
)

# Error types the Anthropic API uses, with the HTTP status each is sent with.
ERROR_STATUS: dict[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

DEFAULT_ERROR_MESSAGE: dict[str, str] = {
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "billing_error": "Your credit balance is too low to access the API.",
    "permission_error": "Your API key does not have permission to use the specified resource.",
    "not_found_error": "Not found",
    "request_too_large": "Request exceeds the maximum allowed number of bytes.",
    "rate_limit_error": "Number of request tokens has exceeded your per-minute rate limit",
    "api_error": "Internal server error",
    "timeout_error": "Request timed out",
    "overloaded_error": "Overloaded",
}


def error_type_for_status(status: int) -> str:
    """The Anthropic error type the real API sends with `status`."""
    for error_type, error_status in ERROR_STATUS.items():
        if error_status == status:
            return error_type
    return "api_error" if status >= 500 else "invalid_request_error"


@dataclass(frozen=True)
class TextPart:
    """Assistant text, streamed in several deltas."""

    text: str


@dataclass(frozen=True)
class ThinkingPart:
    """Extended thinking; its signature is streamed last (Anthropic)."""

    thinking: str
    signature: str


@dataclass(frozen=True)
class ToolCallPart:
    """A tool call: `arguments` is the JSON text streamed; with `id` None the server numbers it."""

    name: str
    arguments: str
    id: str | None = None

    def parsed_input(self) -> dict[str, Any]:
        """The arguments as an object, or {} when they are not a JSON object (raw_tool_use)."""
        try:
            value = json.loads(self.arguments)
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class WebSearchPart:
    """A search the endpoint ran itself (the Messages API's `web_search` server tool): a
    `server_tool_use` block, then its `web_search_tool_result` with `results` as (title, url)."""

    query: str
    results: tuple[tuple[str, str], ...]
    id: str = "srvtoolu_1"


Block: TypeAlias = TextPart | ThinkingPart | ToolCallPart | WebSearchPart


@dataclass(frozen=True)
class Reply:
    """One model response and how to deliver it. Build it with `reply(...)`."""

    blocks: tuple[Block, ...]
    stop_reason: StopReasonName | None = None
    usage: Mapping[str, int] | None = None
    cut_after: int | None = None
    clean_cut: bool = False
    stream_error: str | None = None
    delay_s: float = 0.0
    stall_after: int | None = None
    stall_pings_s: float = 0.0

    def final_stop_reason(self) -> StopReasonName:
        """The stop reason sent: as given, else tool_use when a tool is called, else end_turn."""
        if self.stop_reason is not None:
            return self.stop_reason
        if any(isinstance(b, ToolCallPart) for b in self.blocks):
            return "tool_use"
        return "end_turn"

    def tool_calls(self) -> list[ToolCallPart]:
        return [b for b in self.blocks if isinstance(b, ToolCallPart)]


@dataclass(frozen=True)
class HttpError:
    """One HTTP error response in the wire's real shape. Build it with `http_error(...)`."""

    status: int
    message: str
    error_type: str
    retry_after_ms: float = 0.0
    retry_after: str | None = None


Turn: TypeAlias = Reply | Block | HttpError | Callable[[RecordedRequest], "Turn"]


def text(content: str) -> TextPart:
    """A text block."""
    return TextPart(content)


def thinking(content: str, signature: str = "sig-1") -> ThinkingPart:
    """A thinking block (Anthropic thinking + signature; OpenAI `reasoning_content`)."""
    return ThinkingPart(content, signature)


def tool_use(
    name: str, input: Mapping[str, Any] | None = None, /, *, id: str | None = None, **fields: Any
) -> ToolCallPart:
    """A tool call: `tool_use("Bash", command="ls")` or `tool_use("Bash", {"command": "ls"})`.

    Pass the input as a dict when it has a field called `id`. Without `id`, the server numbers
    calls `toolu_<n>` (Anthropic) or `call_<n>` (OpenAI).
    """
    arguments = {**(input or {}), **fields}
    return ToolCallPart(name, json.dumps(arguments), id)


def web_search(query: str, *results: tuple[str, str], id: str = "srvtoolu_1") -> WebSearchPart:
    """A web search the endpoint ran, with its results as (title, url) pairs (Anthropic only:
    the request must offer the `web_search` server tool)."""
    return WebSearchPart(query, results, id)


def raw_tool_use(name: str, arguments: str, *, id: str | None = None) -> ToolCallPart:
    """A tool call whose streamed arguments are exactly `arguments`, valid JSON or not."""
    return ToolCallPart(name, arguments, id)


def reply(
    *blocks: Block,
    stop_reason: StopReasonName | None = None,
    usage: Mapping[str, int] | None = None,
    cut_after: int | None = None,
    clean_cut: bool = False,
    stream_error: str | None = None,
    delay_s: float = 0.0,
    stall_after: int | None = None,
    stall_pings_s: float = 0.0,
) -> Reply:
    """One model response.

    stop_reason: default "tool_use" when a tool is called, else "end_turn".
    usage: overrides reported usage (input_tokens, output_tokens, cache_creation_input_tokens,
        cache_read_input_tokens); others are estimated.
    cut_after: stream only the first N events, then drop the connection mid-body; with
        `clean_cut` end the HTTP body properly instead. The final event (message_stop or
        [DONE]) is never sent. A non-streaming request gets headers and no body.
    stream_error: an error type (e.g. "overloaded_error") sent as the API's in-stream error
        event after `cut_after` events (default 1), ending the stream. A non-streaming request
        gets that error as an HTTP error instead.
    delay_s: pause before each streamed event after the first (a slow model, for interrupt
        tests); before the body of a non-streaming answer.
    stall_after: send the headers and the first N streamed events (for 0, nothing at all: not
        even the headers), then hold the connection open without a byte until the client gives
        up or the server stops (a stalled endpoint, for idle-timeout tests).
    stall_pings_s: while stalled (after headers), a keep-alive every this many seconds and
        nothing else: a `ping` event on the Anthropic wire, an SSE comment (`: keep-alive`) on
        the OpenAI wire, as endpoints send them while they think (or hang).
    """
    if cut_after is not None and cut_after < 0:
        raise ValueError("cut_after must be >= 0")
    if stall_after is not None and stall_after < 0:
        raise ValueError("stall_after must be >= 0")
    if stall_pings_s < 0 or (stall_pings_s and not stall_after):
        raise ValueError("stall_pings_s must be >= 0, and needs a stall_after of 1 or more")
    if stream_error is not None and stream_error not in ERROR_STATUS:
        raise ValueError(f"unknown error type {stream_error!r}; one of {sorted(ERROR_STATUS)}")
    if usage is not None and not set(usage) <= set(USAGE_FIELDS):
        unknown = sorted(set(usage) - set(USAGE_FIELDS))
        raise ValueError(f"unknown usage fields {unknown}; known: {list(USAGE_FIELDS)}")
    return Reply(
        blocks,
        stop_reason,
        usage,
        cut_after,
        clean_cut,
        stream_error,
        delay_s,
        stall_after,
        stall_pings_s,
    )


def http_error(
    status: int,
    message: str | None = None,
    error_type: str | None = None,
    retry_after_ms: float = 0,
    retry_after: str | None = None,
) -> HttpError:
    """One HTTP error response: 429 rate_limit_error, 500 api_error, 529 overloaded_error...

    `retry-after-ms` and `retry-after` headers go with retryable statuses (408, 409, 429, 5xx)
    so an SDK's own retry waits `retry_after_ms`. Both SDKs ignore a zero wait and fall back
    to their backoff (about half a second), so 0 is sent as 0.001 ms: retry at once.
    `retry_after` is sent alone as the `retry-after` value instead (an HTTP date, garbage).
    """
    kind = error_type or error_type_for_status(status)
    return HttpError(
        status=status,
        message=message or DEFAULT_ERROR_MESSAGE.get(kind, "Error"),
        error_type=kind,
        retry_after_ms=retry_after_ms,
        retry_after=retry_after,
    )


def as_reply_or_error(turn: Reply | Block | HttpError) -> Reply | HttpError:
    """Wrap a bare block in a `Reply`."""
    if isinstance(turn, Reply | HttpError):
        return turn
    return Reply((turn,))


def is_turn(value: object) -> bool:
    """Whether `value` can be scripted."""
    return callable(value) or isinstance(
        value, Reply | HttpError | TextPart | ThinkingPart | ToolCallPart | WebSearchPart
    )
