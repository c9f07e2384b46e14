"""`AnthropicModel`: the Messages API over HTTP, streamed event by event.

tether encodes the request body itself (`anthropic_request.py`) and assembles the raw stream
events here: a stream that ends before `message_stop` is an error, never a shorter answer, and
tool input is built only from complete JSON. No SDK is involved; a provider whose transport must
be an SDK (Claude on Bedrock or Vertex: signed requests, another endpoint layout) would be
another `Model` beside this one, importing its SDK only when chosen.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from tether.models.anthropic_request import (
    ThinkingStyle,
    build_body,
    convert_message,
    dumps,
    encode_body,
)
from tether.models.base import (
    Answered,
    BlockDone,
    ModelEvent,
    ModelRequest,
    ResponseDone,
    ResponseStarted,
    TextChunk,
    ThinkingChunk,
    ToolInputChunk,
    Waiting,
)
from tether.models.endpoint import Endpoint, api_error_message, api_error_type
from tether.models.idle import IdleLimits, default_idle_limits
from tether.models.lazy_client import LazyClient
from tether.models.tool_arguments import tool_use_block
from tether.models.usage_counts import SaidOnce, said_beside, unread_counts
from tether.models.wire_cache import ConvertedMessages
from tether.protocol import (
    ContentBlock,
    Message,
    RedactedThinkingBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
    is_token_count,
)
from tether.slotted import Slotted, replaced

if TYPE_CHECKING:
    from tether.models.sse_client import SseClient

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
# Sent when no key is configured: a gateway that takes none ignores it, the API refuses it.
_NO_KEY = "no-key"

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "pause_turn": "pause_turn",
    "refusal": "refusal",
    # The output was cut because the context filled up: handled as max_tokens, told as is.
    "model_context_window_exceeded": "model_context_window_exceeded",
}


class AnthropicModel:
    """A Claude model (or any Messages-API endpoint). Satisfies `tether.models.base.Model`."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None,
        auth_token: str | None = None,
        default_headers: dict[str, str] | None = None,
        betas: tuple[str, ...] = (),
        provider: str = "anthropic",
        key_env: str | None = "ANTHROPIC_API_KEY",
        thinking: ThinkingStyle = "budget",
        efforts: tuple[str, ...] = (),
        idle: IdleLimits | None = None,
        default_effort: str | None = None,
    ) -> None:
        self.model = model
        self._thinking: ThinkingStyle = thinking
        self._efforts = efforts
        self._default_effort = default_effort
        self._usage_said = SaidOnce()
        self._converted = ConvertedMessages(convert_message)
        self._encoded = ConvertedMessages(lambda m: dumps(convert_message(m)))
        self.endpoint = Endpoint(provider, (base_url or DEFAULT_BASE_URL).rstrip("/"), key_env)
        headers = {"anthropic-version": API_VERSION, "accept": "text/event-stream"}
        if api_key or not auth_token:  # a gateway's bearer token alone: no x-api-key
            headers["x-api-key"] = api_key or _NO_KEY
        if auth_token:
            headers["authorization"] = f"Bearer {auth_token}"
        if betas:
            headers["anthropic-beta"] = ",".join(betas)
        headers.update(default_headers or {})
        limits = idle or default_idle_limits(self.endpoint.base_url)
        self._http = LazyClient(lambda: _sse_client(self.endpoint, headers, limits))
        self._url = f"{self.endpoint.base_url}/v1/messages"

    def warm(self) -> None:
        """Build the HTTP client now, e.g. in a background thread while the user types."""
        self._http.get()

    async def aclose(self) -> None:
        """Close the HTTP connections; the model can still be used, it reconnects."""
        await self._http.aclose()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one response; see `Model.stream`."""
        body = build_body(
            request,
            model=self.model,
            thinking=self._thinking,
            efforts=self._efforts,
            converted=self._converted,
            default_effort=self._default_effort,
        )
        content = encode_body(
            body,
            self._converted.convert_all(request.messages),
            self._encoded.convert_all(request.messages),
        )
        assembly = _Assembly(request.model)
        async with aclosing(self._http.get().events(self._url, content)) as events:
            async for item in events:
                if isinstance(item, Waiting):
                    yield item
                    continue
                if isinstance(item, Answered):
                    assembly.request_id = item.request_id
                    continue
                data = self.endpoint.event_object(item.data, "an event")
                if data.get("type") == "error" or item.event == "error":
                    # An `event: error` inside a 200 response, e.g. overloaded_error.
                    error = data.get("error", data)
                    message = api_error_message(data, "an error event without a message")
                    raise self.endpoint.stream_error(api_error_type({"error": error}), message)
                chunk = assembly.feed(data)
                if assembly.broken is not None:
                    raise self.endpoint.stream_out_of_order(assembly.broken)
                if chunk is not None:
                    yield chunk
        if not assembly.stopped:
            raise self.endpoint.stream_unfinished("message_stop")
        yield replaced(assembly.done(), unread_usage=self._usage_said.first(assembly.unread))


_TOKEN_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
"""The usage counts read from the top of the API's `usage` object."""


class _Part(Slotted):
    """One content block while it streams."""

    __slots__ = (
        "call_id",
        "closed",
        "data",
        "initial_input",
        "kind",
        "name",
        "pieces",
        "server",
        "signature",
    )
    kind: str
    pieces: list[str]
    signature: str
    call_id: str
    name: str
    data: str
    initial_input: dict[str, Any] | None
    closed: bool
    server: dict[str, Any] | None
    """A server tool's block as it started (`server_tool_use`, `web_search_tool_result`)."""

    def __init__(
        self,
        kind: str,
        pieces: list[str] | None = None,
        signature: str = "",
        call_id: str = "",
        name: str = "",
        data: str = "",
        initial_input: dict[str, Any] | None = None,
        closed: bool = False,
        server: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.pieces = [] if pieces is None else pieces
        self.signature = signature
        self.call_id = call_id
        self.name = name
        self.data = data
        self.initial_input = initial_input
        self.closed = closed
        self.server = server


class _Assembly:
    """Builds the assistant message from raw stream events."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.parts: dict[int, _Part] = {}
        self.stopped = False
        self.stop_reason: StopReason | None = None
        self.usage = Usage()
        self.broken: str | None = None
        """Why the events do not make sense together, once they do not."""
        self.started = False
        self.message_id: str | None = None
        self.request_id: str | None = None
        self.unread: dict[str, str] = {}
        """Usage counts given that are no token counts, by name (see `usage_counts`)."""

    def feed(
        self, event: dict[str, Any]
    ) -> TextChunk | ThinkingChunk | ToolInputChunk | ResponseStarted | BlockDone | None:
        kind = event.get("type")
        if kind == "content_block_delta":
            part = self.parts.get(event.get("index", -1))
            delta = _object(event.get("delta"))
            if part is None or part.closed:
                state = "never started" if part is None else "already stopped"
                self.broken = f"a delta for content block {event.get('index')!r}, {state}"
                return None
            delta_kind = delta.get("type")
            if delta_kind == "text_delta":
                text = _text(delta, "text")
                part.pieces.append(text)
                return TextChunk(kind="text", text=text)
            if delta_kind == "thinking_delta":
                text = _text(delta, "thinking")
                part.pieces.append(text)
                return ThinkingChunk(kind="thinking", text=text)
            if delta_kind == "signature_delta":
                part.signature += _text(delta, "signature")
            elif delta_kind == "input_json_delta" and part.kind == "tool_use":
                piece = _text(delta, "partial_json")
                part.pieces.append(piece)
                return ToolInputChunk("tool_input", part.call_id, part.name, piece)
            elif delta_kind == "input_json_delta" and part.server is not None:
                part.pieces.append(_text(delta, "partial_json"))
        elif kind == "content_block_start":
            part = _start_part(_object(event.get("content_block")))
            self.parts[event.get("index", -1)] = part
            if part.kind == "tool_use":
                return ToolInputChunk("tool_input", part.call_id, part.name, None)
        elif kind == "content_block_stop":
            part = self.parts.get(event.get("index", -1))
            if part is None:
                self.broken = f"the stop of content block {event.get('index')!r}, never started"
            else:
                part.closed = True
                return self._closed(part)
        elif kind == "message_start":
            message = _object(event.get("message"))
            self._update_usage(_object(message.get("usage")))
            if not self.started:
                self.started = True
                self.message_id = _text(message, "id") or None
                return ResponseStarted("started", self.message_id, self.request_id, self.usage)
        elif kind == "message_delta":
            reason = _object(event.get("delta")).get("stop_reason")
            if isinstance(reason, str):
                self.stop_reason = _STOP_REASONS.get(reason)
            self._update_usage(_object(event.get("usage")))
        elif kind == "message_stop":
            self.stopped = True
        return None

    def _closed(self, part: _Part) -> BlockDone | None:
        """The block that just closed, as `done` will give it; a call whose input is not
        valid JSON waits for the response's end (max_tokens may explain it)."""
        block = self._finish(part)
        if block is None or (isinstance(block, ToolUseBlock) and block.input_error):
            return None
        return BlockDone(kind="block", block=block, model=self.model)

    def _update_usage(self, counts_given: dict[str, Any]) -> None:
        # message_delta counts are cumulative: each one present replaces the earlier value.
        counts = {name: getattr(self.usage, name) for name in _TOKEN_COUNTS}
        for name in _TOKEN_COUNTS:
            value = counts_given.get(name)
            if is_token_count(value):  # else unknown: a damaged count is not priced (said)
                counts[name] = value
                self.unread.pop(name, None)
        self.unread.update(unread_counts(counts_given, _TOKEN_COUNTS))
        beside = said_beside(counts_given, self.usage, self.unread)  # searches, thinking...
        self.usage = Usage(**counts, **beside)

    def done(self) -> ResponseDone:
        blocks: list[ContentBlock] = []
        for index in sorted(self.parts):
            block = self._finish(self.parts[index])
            if block is not None:
                blocks.append(block)
        message = Message(role="assistant", content=tuple(blocks))
        return ResponseDone(
            kind="done",
            message=message,
            stop_reason=self.stop_reason,
            usage=self.usage,
            message_id=self.message_id,
            request_id=self.request_id,
            server_blocks=tuple(
                _server_block(self.parts[i]) for i in sorted(self.parts) if self.parts[i].server
            ),
        )

    def _finish(self, part: _Part) -> ContentBlock | None:
        text = "".join(part.pieces)
        if part.kind == "text":
            return TextBlock(text=text) if text else None
        if part.kind == "thinking":
            return ThinkingBlock(thinking=text, signature=part.signature)
        if part.kind == "redacted_thinking":
            return RedactedThinkingBlock(data=part.data)
        if part.kind == "tool_use":
            if not part.pieces and part.initial_input and part.closed:
                return ToolUseBlock(id=part.call_id, name=part.name, input=part.initial_input)
            block = tool_use_block(part.call_id, part.name, text)
            cut = self.stop_reason in ("max_tokens", "model_context_window_exceeded")
            if cut and (not part.closed or block.input_error):
                return tool_use_block(part.call_id, part.name, text, cut_by_max_tokens=True)
            return block
        return None


def _start_part(block: dict[str, Any]) -> _Part:
    kind = str(block.get("type", ""))
    if kind == "text":
        text = _text(block, "text")
        return _Part(kind, pieces=[text] if text else [])
    if kind == "thinking":
        text = _text(block, "thinking")
        return _Part(kind, pieces=[text] if text else [], signature=_text(block, "signature"))
    if kind == "redacted_thinking":
        return _Part(kind, data=_text(block, "data"))
    if kind == "tool_use":
        given = _object(block.get("input"))
        return _Part(
            kind, call_id=_text(block, "id"), name=_text(block, "name"), initial_input=given or None
        )
    if kind == "server_tool_use" or kind.endswith("_tool_result"):
        # Tools the endpoint ran (offered through `server_tools`): kept apart from the history.
        return _Part(kind, server=block)
    return _Part(kind)


def _server_block(part: _Part) -> dict[str, Any]:
    """A server tool's block whole: a call's input from its streamed JSON when it has some."""
    block = dict(part.server or {})
    if part.pieces:
        try:
            block["input"] = json.loads("".join(part.pieces))
        except json.JSONDecodeError:
            block["input"] = {}
    return block


def _object(value: object) -> dict[str, Any]:
    """`value` when it is a JSON object, else {}: a field missing from an event is empty."""
    return value if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownVariableType]


def _text(fields: dict[str, Any], name: str) -> str:
    value = fields.get(name)
    return value if isinstance(value, str) else ""


def _sse_client(endpoint: Endpoint, headers: dict[str, str], idle: IdleLimits) -> SseClient:
    # Imported on first use: the HTTP library is not needed before the first request.
    from tether.models.sse_client import SseClient

    return SseClient(endpoint, headers, idle)
