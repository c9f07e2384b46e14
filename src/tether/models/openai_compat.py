"""`OpenAICompatModel`: one adapter for every Chat Completions endpoint (OpenAI, OpenRouter,
Ollama, vLLM, llama.cpp server), streamed over HTTP.

Servers differ in small ways, all accepted here: reasoning arrives as `reasoning_content` or
`reasoning`; tool calls arrive in fragments by `index`, or whole in one delta, sometimes with
no index or no id; Ollama ends a tool-calling response with `finish_reason: "stop"`. Every one
of them ends a complete stream with `data: [DONE]`, so a stream without it was cut.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from tether.models.base import (
    Answered,
    BlockDone,
    ModelEvent,
    ModelRequest,
    ResponseDone,
    ResponseStarted,
    TextChunk,
    ThinkingChunk,
    Waiting,
)
from tether.models.effort import nearest_effort
from tether.models.endpoint import Endpoint, api_error_message, api_error_type
from tether.models.idle import IdleLimits, default_idle_limits
from tether.models.lazy_client import LazyClient
from tether.models.openai_request import chat_messages, chat_tools, convert_message
from tether.models.tool_arguments import tool_use_block
from tether.models.usage_counts import SaidOnce, unread_counts
from tether.models.wire_cache import ConvertedMessages
from tether.protocol import (
    ContentBlock,
    Message,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
    is_token_count,
)
from tether.slotted import replaced

if TYPE_CHECKING:
    from tether.models.sse_client import SseClient

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Sent when no key is configured: local servers ignore it, and a proxy that wants some
# Authorization header gets one.
_NO_KEY = "no-key"
_DONE = "[DONE]"

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
        max_tokens_param: MaxTokensParam = "max_tokens",
        default_headers: dict[str, str] | None = None,
        provider: str = "openai",
        key_env: str | None = "OPENAI_API_KEY",
        idle: IdleLimits | None = None,
        efforts: tuple[str, ...] = (),
    ) -> None:
        self.model = model
        self._efforts = efforts
        """The `reasoning_effort` levels the model takes (none: it is never sent)."""
        self._max_tokens_param: MaxTokensParam = max_tokens_param
        self._usage_said = SaidOnce()
        self._converted = ConvertedMessages(convert_message)
        self.endpoint = Endpoint(provider, (base_url or DEFAULT_BASE_URL).rstrip("/"), key_env)
        headers = {
            "authorization": f"Bearer {api_key or _NO_KEY}",
            "accept": "text/event-stream",
            **(default_headers or {}),
        }
        limits = idle or default_idle_limits(self.endpoint.base_url)
        self._http = LazyClient(lambda: _sse_client(self.endpoint, headers, limits))
        self._url = f"{self.endpoint.base_url}/chat/completions"

    def warm(self) -> None:
        """Build the HTTP client now, e.g. in a background thread."""
        self._http.get()

    async def aclose(self) -> None:
        """Close the HTTP connections; the model can still be used, it reconnects."""
        await self._http.aclose()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one response; see `Model.stream`."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": chat_messages(request, self._converted),
            "stream": True,
            "stream_options": {"include_usage": True},
            self._max_tokens_param: request.max_tokens,
        }
        if request.tools:
            body["tools"] = chat_tools(request.tools)
        if (effort := nearest_effort(request.effort, self._efforts)) is not None:
            body["reasoning_effort"] = effort
        content = json.dumps(body, ensure_ascii=False).encode()
        assembly = _Assembly(self.model)
        finished = False
        async with aclosing(self._http.get().events(self._url, content)) as events:
            async for item in events:
                if isinstance(item, Waiting):
                    yield item
                    continue
                if isinstance(item, Answered):
                    assembly.request_id = item.request_id
                    continue
                if item.data.strip() == _DONE:
                    finished = True
                    continue
                chunk = self.endpoint.event_object(item.data, "a chunk")
                if chunk.get("error") is not None:
                    # A `{"error": ...}` chunk inside a 200 response.
                    message = api_error_message(chunk, "an error chunk without a message")
                    raise self.endpoint.stream_error(api_error_type(chunk), message)
                if not assembly.started:
                    # A chunk's `id` names the completion; the usage comes with the last.
                    assembly.started = True
                    assembly.message_id = _nonempty_text(chunk.get("id"))
                    yield ResponseStarted(
                        "started", assembly.message_id, assembly.request_id, Usage()
                    )
                for event in assembly.feed(chunk):
                    yield event
        if not finished:
            raise self.endpoint.stream_unfinished(_DONE)
        if assembly.other_choice is not None and not assembly.own_choice:
            detail = f"only choice {assembly.other_choice!r} came, never the one asked for"
            raise self.endpoint.stream_out_of_order(detail)
        nameless = sum(1 for call in assembly.calls if not call.name)
        if nameless:  # a fragment of a call whose start never came
            raise self.endpoint.stream_out_of_order(f"{nameless} tool call(s) with no name")
        yield replaced(assembly.done(), unread_usage=self._usage_said.first(assembly.unread))


@dataclass
class _Call:
    call_id: str | None
    name: str = ""
    arguments: list[str] = field(default_factory=list[str])
    made_id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:24]}")
    """The id it goes by when the server gave none (ids must stay unique across the whole
    conversation, so a missing one is random), the same when it closes and at the end."""

    def block(self, cut: bool = False) -> ToolUseBlock:
        raw = "".join(self.arguments)
        block = tool_use_block(self.call_id or self.made_id, self.name, raw)
        if cut and block.input_error is not None:
            block = tool_use_block(block.id, self.name, raw, cut_by_max_tokens=True)
        return block


class _Assembly:
    """Builds the assistant message from chat completion chunks, and tells each block as it
    closes (`BlockDone`), as the Messages API's stream does: the reasoning when the text or a
    call starts, the text when a call starts, a call when the next one starts. The last
    block closes with the response."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[_Call] = []
        self.by_index: dict[int, _Call] = {}
        self.finish_reason: str | None = None
        self.usage = Usage()
        self.unread: dict[str, str] = {}
        """Usage counts given that are no token counts, by name (see `usage_counts`)."""
        self.own_choice = False
        self.other_choice: object = None
        """The index of a choice not asked for, if one came."""
        self.started = False
        self.message_id: str | None = None
        self.request_id: str | None = None
        self.closed = 0
        """Blocks told closed so far, in the order `done` gives them."""
        self.closing = True
        """False once a block could not be told in order (a call whose input is not valid
        JSON waits for the end, where max_tokens may explain it; text after a call): the
        rest are told with the response."""

    def _close(self, upto: int) -> list[BlockDone]:
        """Tell the blocks before the `upto`th of the message (as `done` will order them)."""
        told: list[BlockDone] = []
        if not self.closing or self.closed >= upto:
            return told  # (checked first: the blocks are not made for nothing)
        blocks = self._blocks(cut=False)
        while self.closing and self.closed < min(upto, len(blocks)):
            block = blocks[self.closed]
            if isinstance(block, ToolUseBlock) and block.input_error is not None:
                self.closing = False
                break
            told.append(BlockDone(kind="block", block=block, model=self.model))
            self.closed += 1
        return told

    def _heads(self) -> int:
        """How many blocks come before the calls: the reasoning and the text, when given."""
        return (1 if self.reasoning else 0) + (1 if self.text else 0)

    def feed(self, chunk: dict[str, Any]) -> list[TextChunk | ThinkingChunk | BlockDone]:
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            given = _object(usage)
            self.usage = _usage(given)
            details = _object(given.get("prompt_tokens_details"))
            self.unread = unread_counts(given, ("prompt_tokens", "completion_tokens"))
            self.unread.update(unread_counts(details, ("cached_tokens", "cache_write_tokens")))
        events: list[TextChunk | ThinkingChunk | BlockDone] = []
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            choice = _object(choice)
            # Only one answer is asked for; servers that omit the index send only that one.
            if choice.get("index") not in (0, None):
                self.other_choice = choice.get("index")
                continue
            self.own_choice = True
            finish_reason = choice.get("finish_reason")
            if isinstance(finish_reason, str):
                self.finish_reason = finish_reason
            delta = _object(choice.get("delta"))  # null in some servers' finishing chunk
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                if self.text or self.calls:
                    self.closing = False  # reasoning after the text: joined to the first
                self.reasoning.append(reasoning)
                events.append(ThinkingChunk(kind="thinking", text=reasoning))
            for text in (delta.get("content"), delta.get("refusal")):
                if isinstance(text, str) and text:
                    if self.calls:
                        self.closing = False  # text after a call: joined to the text before
                    if self.reasoning and not self.text:  # the text starts: reasoning ends
                        events.extend(self._close(1))
                    self.text.append(text)
                    events.append(TextChunk(kind="text", text=text))
            calls = delta.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                known = len(self.calls)
                continued = self._add_call_fragment(_object(call))
                if self.calls.index(continued) < self.closed - self._heads():
                    self.closing = False  # a call told closed goes on: told again at the end
                if len(self.calls) > known:  # a call started: what came before it is whole
                    events.extend(self._close(self._heads() + known))
        return events

    def _add_call_fragment(self, fragment: dict[str, Any]) -> _Call:
        """Add a fragment to the call it continues or starts; returns that call."""
        index = fragment.get("index")
        call_id = fragment.get("id")
        call = self._call_for(
            index if isinstance(index, int) else None,
            call_id if isinstance(call_id, str) and call_id else None,
        )
        function = fragment.get("function")
        if not isinstance(function, dict):
            return call
        name = function.get("name")
        if isinstance(name, str) and name and not call.name:
            call.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif isinstance(arguments, dict):
            # Some servers send the arguments as an object rather than JSON text.
            call.arguments.append(json.dumps(arguments))
        return call

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

    def _blocks(self, cut: bool) -> list[ContentBlock]:
        blocks: list[ContentBlock] = []
        reasoning = "".join(self.reasoning)
        if reasoning:
            blocks.append(ThinkingBlock(thinking=reasoning))
        text = "".join(self.text)
        if text:
            blocks.append(TextBlock(text=text))
        blocks.extend(call.block(cut) for call in self.calls)
        return blocks

    def done(self) -> ResponseDone:
        blocks = self._blocks(cut=self.finish_reason == "length")
        stop_reason = _FINISH_REASONS.get(self.finish_reason or "", "end_turn")
        if self.calls and stop_reason == "end_turn":
            stop_reason = "tool_use"
        message = Message(role="assistant", content=tuple(blocks))
        return ResponseDone(
            kind="done",
            message=message,
            stop_reason=stop_reason,
            usage=self.usage,
            message_id=self.message_id,
            request_id=self.request_id,
        )


def _usage(usage: dict[str, Any]) -> Usage:
    details = _object(usage.get("prompt_tokens_details"))
    # Servers vary in what they fill in; a missing count is 0, not a crash.
    cached = _count(details, "cached_tokens")
    written = _count(details, "cache_write_tokens")
    prompt = _count(usage, "prompt_tokens")
    return Usage(
        input_tokens=max(prompt - cached - written, 0),
        output_tokens=_count(usage, "completion_tokens"),
        cache_creation_input_tokens=written,
        cache_read_input_tokens=cached,
        # Chat Completions' reasoning tokens are the thinking the model did.
        thinking_tokens=_count(_object(usage.get("completion_tokens_details")), "reasoning_tokens"),
        cache_reads_unsaid=details.get("cached_tokens") is None,
    )


def _count(fields: dict[str, Any], name: str) -> int:
    value = fields.get(name)
    return value if is_token_count(value) else 0  # else unknown: a damaged count is not priced


def _object(value: object) -> dict[str, Any]:
    """`value` when it is a JSON object, else {}."""
    return value if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownVariableType]


def _sse_client(endpoint: Endpoint, headers: dict[str, str], idle: IdleLimits) -> SseClient:
    # Imported on first use: the HTTP library is not needed before the first request.
    from tether.models.sse_client import SseClient

    return SseClient(endpoint, headers, idle)


def _nonempty_text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
