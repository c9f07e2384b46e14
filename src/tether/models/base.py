"""The `Model` protocol: one streaming method, and the request and events it speaks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from tether.protocol import ContentBlock, Message, StopReason, ToolSpec, Usage
from tether.slotted import Slotted


@dataclass(frozen=True)
class ModelRequest:
    model: str
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 16384
    thinking_budget: int | None = None
    """Thinking tokens per reply; 0: thinking turned off (said so, which an effort level does
    not turn back on); None: none asked for."""
    effort: str | None = None
    """The effort level asked for (`tether.models.effort`); each adapter sends what its model
    takes of it."""
    metadata: dict[str, str] = field(default_factory=dict[str, str])
    server_tools: tuple[dict[str, Any], ...] = ()
    """Tools the endpoint runs itself, as the Messages API takes them (`web_search_20250305`):
    sent after `tools`; their calls and results come back in `ResponseDone.server_blocks`."""


class TextChunk(Slotted):
    __slots__ = ("kind", "text")
    kind: Final[Literal["text"]]
    text: Final[str]

    def __init__(self, kind: Literal["text"], text: str) -> None:
        self.kind = kind
        self.text = text


class ThinkingChunk(Slotted):
    __slots__ = ("kind", "text")
    kind: Final[Literal["thinking"]]
    text: Final[str]

    def __init__(self, kind: Literal["thinking"], text: str) -> None:
        self.kind = kind
        self.text = text


class ToolInputChunk(Slotted):
    """A tool call's input as it streams: `partial_json` None when its block opens, then
    each fragment of JSON text as the endpoint sent it (the first may be empty). Only for
    display; the call's input is read from `ResponseDone`."""

    __slots__ = ("call_id", "kind", "name", "partial_json")
    kind: Final[Literal["tool_input"]]
    call_id: Final[str]
    name: Final[str]
    partial_json: Final[str | None]

    def __init__(
        self, kind: Literal["tool_input"], call_id: str, name: str, partial_json: str | None
    ) -> None:
        self.kind = kind
        self.call_id = call_id
        self.name = name
        self.partial_json = partial_json


class Waiting(Slotted):
    """No byte has arrived for `waited_s` seconds; the attempt is given up at `limit_s`."""

    __slots__ = ("kind", "limit_s", "pings_only", "waited_s")
    kind: Final[Literal["waiting"]]
    waited_s: Final[float]
    limit_s: Final[float]
    pings_only: Final[bool]
    """Keep-alives arrived meanwhile (`ping` events, comments): the connection lives, the
    answer does not move on."""

    def __init__(
        self, kind: Literal["waiting"], waited_s: float, limit_s: float, pings_only: bool = False
    ) -> None:
        self.kind = kind
        self.waited_s = waited_s
        self.limit_s = limit_s
        self.pings_only = pings_only


class ResponseStarted(Slotted):
    """The response began (the Messages API's `message_start`, a Chat Completions stream's
    first chunk): its id, the endpoint's id for the request, and the usage known so far (the
    input and cache counts, on the Messages API). At most once, before any chunk."""

    __slots__ = ("kind", "message_id", "request_id", "usage")
    kind: Final[Literal["started"]]
    message_id: Final[str | None]
    request_id: Final[str | None]
    usage: Final[Usage]

    def __init__(
        self, kind: Literal["started"], message_id: str | None, request_id: str | None, usage: Usage
    ) -> None:
        self.kind = kind
        self.message_id = message_id
        self.request_id = request_id
        self.usage = usage


class BlockDone(Slotted):
    """One content block ended (`content_block_stop`), as the response will hold it: front
    ends may show it before the response ends (Claude Code writes a line per block as it
    closes). Informational: the response is still taken from `ResponseDone`."""

    __slots__ = ("block", "kind", "model")
    kind: Final[Literal["block"]]
    block: Final[ContentBlock]
    model: Final[str]
    """The model writing it (the request's)."""

    def __init__(self, kind: Literal["block"], block: ContentBlock, model: str) -> None:
        self.kind = kind
        self.block = block
        self.model = model


class ResponseDone(Slotted):
    """The stream finished (`message_stop` seen): only now may tools run. `message_id` and
    `request_id` as `ResponseStarted` gave them."""

    __slots__ = (
        "block_uuids",
        "kind",
        "message",
        "message_id",
        "request_id",
        "server_blocks",
        "stop_reason",
        "unread_usage",
        "usage",
    )
    kind: Final[Literal["done"]]
    message: Final[Message]
    stop_reason: Final[StopReason | None]
    usage: Final[Usage]
    message_id: Final[str | None]
    request_id: Final[str | None]
    block_uuids: Final[tuple[str, ...]]
    """The session file's entry for each block of `message`, named as each block closed (set
    by the core as it streams, not by providers): the ids a front end gave those blocks."""
    unread_usage: Final[tuple[str, ...]]
    """Usage counts the endpoint gave that cannot be token counts (`output_tokens="many"`, a
    negative or huge number), each as `name=value`: not counted nor priced. An adapter names
    them once in its life, so that a session says it once."""
    server_blocks: Final[tuple[dict[str, Any], ...]]
    """The blocks of tools the endpoint ran itself (`server_tool_use`, `web_search_tool_result`),
    as it sent them, in order: for the caller that offered `server_tools`; never in `message`."""

    def __init__(
        self,
        kind: Literal["done"],
        message: Message,
        stop_reason: StopReason | None,
        usage: Usage,
        message_id: str | None = None,
        request_id: str | None = None,
        block_uuids: tuple[str, ...] = (),
        unread_usage: tuple[str, ...] = (),
        server_blocks: tuple[dict[str, Any], ...] = (),
    ) -> None:
        self.kind = kind
        self.message = message
        self.stop_reason = stop_reason
        self.usage = usage
        self.message_id = message_id
        self.request_id = request_id
        self.block_uuids = block_uuids
        self.unread_usage = unread_usage
        self.server_blocks = server_blocks


ModelEvent = (
    TextChunk
    | ThinkingChunk
    | ToolInputChunk
    | BlockDone
    | Waiting
    | ResponseStarted
    | ResponseDone
)


class Answered:
    """`SseClient.events`'s first item once the endpoint answered with an event stream:
    the id the endpoint gave the request (its `request-id` or `x-request-id` header), if any.
    A plain class: a dataclass would cost start-up its generated methods for nothing."""

    __slots__ = ("request_id",)

    def __init__(self, request_id: str | None) -> None:
        self.request_id = request_id


class Model(Protocol):
    """A model endpoint. `stream` yields a `ResponseStarted` when the response begins, chunks
    (and `Waiting` notices while the endpoint is silent), then exactly one `ResponseDone`.

    It raises `ModelError` (with `retryable` set for cut-off streams, 429 and 5xx) when the
    call fails; it never yields `ResponseDone` for a stream that did not finish.
    """

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...
