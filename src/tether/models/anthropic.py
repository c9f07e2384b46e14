"""`AnthropicModel`: the Messages API through the official SDK, streamed event by event.

The raw events are assembled here rather than by the SDK's helper, because the SDK's helper
accepts a stream that ends before `message_stop` and builds tool input from partial JSON.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tether.models.anthropic_request import (
    ThinkingStyle,
    build_body,
    convert_message,
    dumps,
    encode_body,
)
from tether.models.base import ModelEvent, ModelRequest, ResponseDone, TextChunk, ThinkingChunk
from tether.models.endpoint import (
    CONNECT_TIMEOUT_S,
    Endpoint,
    api_error_message,
    api_error_type,
    transport_detail,
)
from tether.models.lazy_client import LazyClient
from tether.models.tool_arguments import tool_use_block
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
)

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from anthropic.types import RawMessageStreamEvent

DEFAULT_BASE_URL = "https://api.anthropic.com"
_NO_KEY = "no-key"

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "pause_turn": "pause_turn",
    "refusal": "refusal",
    # The output was cut because the context filled up: the same situation as max_tokens.
    "model_context_window_exceeded": "max_tokens",
}


class AnthropicModel:
    """A Claude model (or any Messages-API endpoint). Satisfies `tether.models.base.Model`."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None,
        max_retries: int = 2,
        timeout_s: float = 600.0,
        default_headers: dict[str, str] | None = None,
        provider: str = "anthropic",
        key_env: str | None = "ANTHROPIC_API_KEY",
        thinking: ThinkingStyle = "budget",
    ) -> None:
        self.model = model
        self._api_key = api_key
        self._max_retries = max_retries
        self._timeout_s = timeout_s
        self._default_headers = default_headers
        self._thinking: ThinkingStyle = thinking
        self._converted = ConvertedMessages(convert_message)
        self._encoded = ConvertedMessages(lambda m: dumps(convert_message(m)))
        self.endpoint = Endpoint(provider, base_url or DEFAULT_BASE_URL, key_env)
        self._client = LazyClient(self._build_client)

    def warm(self) -> None:
        """Import the SDK and build the client now (about a second), e.g. in a background
        thread while the user types."""
        self._client.get()

    async def aclose(self) -> None:
        """Close the HTTP connections; the model can still be used, it reconnects."""
        await self._client.aclose()

    def _build_client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic, Timeout

        return AsyncAnthropic(
            # Without a key the SDK searches the environment and profile files, then
            # refuses to send; a gateway that takes no key ignores this one.
            api_key=self._api_key or _NO_KEY,
            base_url=self.endpoint.base_url,
            max_retries=self._max_retries,
            timeout=Timeout(self._timeout_s, connect=min(CONNECT_TIMEOUT_S, self._timeout_s)),
            default_headers=self._default_headers,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one response; see `Model.stream`."""
        import anthropic
        import httpx2

        client = self._client.get()
        body = build_body(
            request, model=self.model, thinking=self._thinking, converted=self._converted
        )
        content = encode_body(
            body,
            self._converted.convert_all(request.messages),
            self._encoded.convert_all(request.messages),
        )
        try:
            # The SDK's own `post` with the body already encoded: `messages.create` would copy
            # and encode the whole conversation again on every request (about 6 ms at turn 300
            # of a long session, growing with it); the client, retries and errors are the same.
            events = await client.post(
                "/v1/messages",
                content=content,
                cast_to=anthropic.types.Message,
                stream=True,
                stream_cls=anthropic.AsyncStream[anthropic.types.RawMessageStreamEvent],
            )
        except anthropic.APIStatusError as err:
            message = api_error_message(err.body, err.message)
            raise self.endpoint.http_error(err.status_code, message) from err
        except anthropic.APIConnectionError as err:
            raise self.endpoint.unreachable(transport_detail(err)) from err

        assembly = _Assembly()
        try:
            async for event in events:
                chunk = assembly.feed(event)
                if chunk is not None:
                    yield chunk
        except anthropic.APIStatusError as err:
            # An `event: error` inside a 200 response, e.g. overloaded_error.
            message = api_error_message(err.body, err.message)
            raise self.endpoint.stream_error(api_error_type(err.body), message) from err
        except (anthropic.APIConnectionError, httpx2.RequestError) as err:
            raise self.endpoint.stream_broken(transport_detail(err)) from err
        finally:
            await events.close()
        if not assembly.stopped:
            raise self.endpoint.stream_unfinished("message_stop")
        yield assembly.done()


@dataclass
class _Part:
    """One content block while it streams."""

    kind: str
    pieces: list[str] = field(default_factory=list[str])
    signature: str = ""
    call_id: str = ""
    name: str = ""
    data: str = ""
    initial_input: dict[str, Any] | None = None
    closed: bool = False


class _Assembly:
    """Builds the assistant message from raw stream events."""

    def __init__(self) -> None:
        self.parts: dict[int, _Part] = {}
        self.stopped = False
        self.stop_reason: StopReason | None = None
        self.usage = Usage()

    def feed(self, event: RawMessageStreamEvent) -> TextChunk | ThinkingChunk | None:
        if event.type == "content_block_delta":
            part = self.parts.get(event.index)
            if part is None:
                return None
            delta = event.delta
            if delta.type == "text_delta":
                part.pieces.append(delta.text)
                return TextChunk(kind="text", text=delta.text)
            if delta.type == "thinking_delta":
                part.pieces.append(delta.thinking)
                return ThinkingChunk(kind="thinking", text=delta.thinking)
            if delta.type == "signature_delta":
                part.signature += delta.signature
            elif delta.type == "input_json_delta":
                part.pieces.append(delta.partial_json)
        elif event.type == "content_block_start":
            self.parts[event.index] = _start_part(event.content_block)
        elif event.type == "content_block_stop":
            if event.index in self.parts:
                self.parts[event.index].closed = True
        elif event.type == "message_start":
            usage = event.message.usage
            self.usage = Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_creation_input_tokens=usage.cache_creation_input_tokens or 0,
                cache_read_input_tokens=usage.cache_read_input_tokens or 0,
            )
        elif event.type == "message_delta":
            if event.delta.stop_reason is not None:
                self.stop_reason = _STOP_REASONS.get(event.delta.stop_reason)
            self._update_usage(event.usage)
        elif event.type == "message_stop":
            self.stopped = True
        return None

    def _update_usage(self, delta: Any) -> None:
        # message_delta counts are cumulative: each one present replaces the earlier value.
        counts = self.usage.model_dump()
        for name in counts:
            value = getattr(delta, name, None)
            if isinstance(value, int):
                counts[name] = value
        self.usage = Usage(**counts)

    def done(self) -> ResponseDone:
        blocks: list[ContentBlock] = []
        for index in sorted(self.parts):
            block = self._finish(self.parts[index])
            if block is not None:
                blocks.append(block)
        message = Message(role="assistant", content=tuple(blocks))
        return ResponseDone(
            kind="done", message=message, stop_reason=self.stop_reason, usage=self.usage
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
            if self.stop_reason == "max_tokens" and (not part.closed or block.input_error):
                return tool_use_block(part.call_id, part.name, text, cut_by_max_tokens=True)
            return block
        return None


def _start_part(block: Any) -> _Part:
    kind: str = block.type
    if kind == "text":
        return _Part(kind, pieces=[block.text] if block.text else [])
    if kind == "thinking":
        return _Part(
            kind, pieces=[block.thinking] if block.thinking else [], signature=block.signature or ""
        )
    if kind == "redacted_thinking":
        return _Part(kind, data=block.data)
    if kind == "tool_use":
        return _Part(kind, call_id=block.id, name=block.name, initial_input=block.input or None)
    # Server-side tools and their results are not used by tether; keep them out of the history.
    return _Part(kind)
