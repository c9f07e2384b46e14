"""`OpenAICompatModel`: one adapter for every Chat Completions endpoint (OpenAI, OpenRouter,
Ollama, vLLM, llama.cpp server), streamed through the official SDK.

Servers differ in small ways, all accepted here: reasoning arrives as `reasoning_content` or
`reasoning`; tool calls arrive in fragments by `index`, or whole in one delta, sometimes with
no index or no id; Ollama ends a tool-calling response with `finish_reason: "stop"`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast

from tether.models.base import ModelEvent, ModelRequest, ResponseDone, TextChunk, ThinkingChunk
from tether.models.endpoint import (
    CONNECT_TIMEOUT_S,
    Endpoint,
    api_error_message,
    api_error_type,
    transport_detail,
)
from tether.models.lazy_client import LazyClient
from tether.models.openai_request import chat_messages, chat_tools, convert_message
from tether.models.tool_arguments import tool_use_block
from tether.models.wire_cache import ConvertedMessages
from tether.protocol import ContentBlock, Message, StopReason, TextBlock, ThinkingBlock, Usage

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionChunk
    from openai.types.chat.chat_completion_chunk import ChoiceDelta
    from openai.types.completion_usage import CompletionUsage

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# The SDK refuses to start without a key; local servers need none and ignore this one.
_NO_KEY = "no-key"

MaxTokensParam = Literal["max_tokens", "max_completion_tokens"]

_FINISH_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


class OpenAICompatModel:
    """A model behind an OpenAI-compatible endpoint. Satisfies `tether.models.base.Model`."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None,
        max_retries: int = 2,
        timeout_s: float = 600.0,
        max_tokens_param: MaxTokensParam = "max_tokens",
        default_headers: dict[str, str] | None = None,
        provider: str = "openai",
        key_env: str | None = "OPENAI_API_KEY",
    ) -> None:
        self.model = model
        self._api_key = api_key
        self._max_retries = max_retries
        self._timeout_s = timeout_s
        self._max_tokens_param: MaxTokensParam = max_tokens_param
        self._default_headers = default_headers
        self._converted = ConvertedMessages(convert_message)
        self.endpoint = Endpoint(provider, base_url or DEFAULT_BASE_URL, key_env)
        self._client = LazyClient(self._build_client)

    def warm(self) -> None:
        """Import the SDK and build the client now, e.g. in a background thread."""
        self._client.get()

    async def aclose(self) -> None:
        """Close the HTTP connections; the model can still be used, it reconnects."""
        await self._client.aclose()

    def _build_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI, Timeout

        return AsyncOpenAI(
            api_key=self._api_key or _NO_KEY,
            base_url=self.endpoint.base_url,
            max_retries=self._max_retries,
            timeout=Timeout(self._timeout_s, connect=min(CONNECT_TIMEOUT_S, self._timeout_s)),
            default_headers=self._default_headers,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one response; see `Model.stream`."""
        import httpx2
        import openai

        client = self._client.get()
        body: dict[str, Any] = {
            "model": self.model,
            "messages": chat_messages(request, self._converted),
            "stream_options": {"include_usage": True},
            self._max_tokens_param: request.max_tokens,
        }
        if request.tools:
            body["tools"] = chat_tools(request.tools)
        try:
            chunks = await client.chat.completions.create(**cast(Any, body), stream=True)
        except openai.APIStatusError as err:
            message = api_error_message(err.body, err.message)
            raise self.endpoint.http_error(err.status_code, message) from err
        except openai.APIConnectionError as err:
            raise self.endpoint.unreachable(transport_detail(err)) from err

        assembly = _Assembly()
        try:
            async for chunk in chunks:
                for event in assembly.feed(chunk):
                    yield event
        except (openai.APIConnectionError, httpx2.RequestError) as err:
            raise self.endpoint.stream_broken(transport_detail(err)) from err
        except openai.APIError as err:
            # A `{"error": ...}` chunk inside a 200 response.
            message = api_error_message(err.body, err.message)
            raise self.endpoint.stream_error(api_error_type({"error": err.body}), message) from err
        finally:
            await chunks.close()
        if assembly.finish_reason is None:
            raise self.endpoint.stream_unfinished("a finish_reason")
        yield assembly.done()


@dataclass
class _Call:
    call_id: str | None
    name: str = ""
    arguments: list[str] = field(default_factory=list[str])


class _Assembly:
    """Builds the assistant message from chat completion chunks."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[_Call] = []
        self.by_index: dict[int, _Call] = {}
        self.finish_reason: str | None = None
        self.usage = Usage()

    def feed(self, chunk: ChatCompletionChunk) -> list[TextChunk | ThinkingChunk]:
        if chunk.usage is not None:
            self.usage = _usage(chunk.usage)
        events: list[TextChunk | ThinkingChunk] = []
        for choice in chunk.choices or ():
            # Only one answer is asked for; servers that omit the index send only that one.
            if choice.index not in (0, None):
                continue
            if choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason
            delta = cast("ChoiceDelta | None", choice.delta)
            if delta is None:  # sent as null by some servers in the finishing chunk
                continue
            reasoning = getattr(delta, "reasoning_content", None) or getattr(
                delta, "reasoning", None
            )
            if isinstance(reasoning, str) and reasoning:
                self.reasoning.append(reasoning)
                events.append(ThinkingChunk(kind="thinking", text=reasoning))
            for text in (delta.content, delta.refusal):
                if text:
                    self.text.append(text)
                    events.append(TextChunk(kind="text", text=text))
            for call in delta.tool_calls or ():
                self._add_call_fragment(call)
        return events

    def _add_call_fragment(self, fragment: Any) -> None:
        index: int | None = getattr(fragment, "index", None)
        call_id: str | None = getattr(fragment, "id", None) or None
        call = self._call_for(index, call_id)
        function = getattr(fragment, "function", None)
        if function is None:
            return
        name = getattr(function, "name", None)
        if name and not call.name:
            call.name = name
        arguments = getattr(function, "arguments", None)
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif isinstance(arguments, dict):
            # Some servers send the arguments as an object rather than JSON text.
            call.arguments.append(json.dumps(arguments))

    def _call_for(self, index: int | None, call_id: str | None) -> _Call:
        """The call this fragment continues, or a new one: a fragment continues a call when
        its index matches (or, with no index, it is the latest) and its id does not differ."""
        existing = self.by_index.get(index) if index is not None else None
        if existing is None and index is None and self.calls:
            existing = self.calls[-1]
        if existing is not None and call_id in (None, existing.call_id):
            return existing
        if existing is not None and existing.call_id is None:
            existing.call_id = call_id
            return existing
        call = _Call(call_id)
        self.calls.append(call)
        if index is not None:
            self.by_index[index] = call
        return call

    def done(self) -> ResponseDone:
        blocks: list[ContentBlock] = []
        reasoning = "".join(self.reasoning)
        if reasoning:
            blocks.append(ThinkingBlock(thinking=reasoning))
        text = "".join(self.text)
        if text:
            blocks.append(TextBlock(text=text))
        cut = self.finish_reason == "length"
        for call in self.calls:
            raw = "".join(call.arguments)
            # Ids must stay unique across the whole conversation, so a missing one is random.
            block = tool_use_block(call.call_id or f"call_{uuid.uuid4().hex[:24]}", call.name, raw)
            if cut and block.input_error is not None:
                block = tool_use_block(block.id, call.name, raw, cut_by_max_tokens=True)
            blocks.append(block)
        stop_reason = _FINISH_REASONS.get(self.finish_reason or "", "end_turn")
        if self.calls and stop_reason == "end_turn":
            stop_reason = "tool_use"
        message = Message(role="assistant", content=tuple(blocks))
        return ResponseDone(kind="done", message=message, stop_reason=stop_reason, usage=self.usage)


def _usage(usage: CompletionUsage) -> Usage:
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details is not None else 0
    written = (details.cache_write_tokens or 0) if details is not None else 0
    # Servers vary in what they fill in; a missing count is 0, not a crash.
    prompt = usage.prompt_tokens or 0
    return Usage(
        input_tokens=max(prompt - cached - written, 0),
        output_tokens=usage.completion_tokens or 0,
        cache_creation_input_tokens=written,
        cache_read_input_tokens=cached,
    )
