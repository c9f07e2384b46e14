"""Messages and content blocks: the conversation as tether stores and sends it.

The shapes follow the Anthropic Messages API, the richer of the two wire formats; the
OpenAI-compatible adapter converts to and from them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Annotated, Any, ClassVar, Final, Literal, TypeGuard

from tether.protocol.record import NON_EMPTY, AtMost, DumpMode, Record, Tagged


class _Block(Record):
    __slots__ = ()
    _closed: ClassVar[bool] = True


class TextBlock(_Block):
    __slots__ = ("text", "type")
    type: Final[Literal["text"]]
    text: Final[str]

    def __init__(self, *, text: str, type: Literal["text"] = "text") -> None:
        self.type = type
        self.text = text


class ThinkingBlock(_Block):
    __slots__ = ("signature", "thinking", "type")
    type: Final[Literal["thinking"]]
    thinking: Final[str]
    signature: Final[str]

    def __init__(
        self, *, thinking: str, signature: str = "", type: Literal["thinking"] = "thinking"
    ) -> None:
        self.type = type
        self.thinking = thinking
        self.signature = signature


class RedactedThinkingBlock(_Block):
    __slots__ = ("data", "type")
    type: Final[Literal["redacted_thinking"]]
    data: Final[str]

    def __init__(
        self, *, data: str, type: Literal["redacted_thinking"] = "redacted_thinking"
    ) -> None:
        self.type = type
        self.data = data


class ToolUseBlock(_Block):
    """A tool call. `input_error`: set when the model's arguments were not a JSON object;
    `raw_input`: the arguments exactly as streamed, kept when they did not parse;
    `input_refused`: why tether refuses the arguments as the model gave them (text that is not
    Unicode, replaced in `input` so the history can be sent), the call answered with it and not
    run. The three are never sent to the API."""

    __slots__ = ("id", "input", "input_error", "input_refused", "name", "raw_input", "type")
    type: Final[Literal["tool_use"]]
    id: Final[str]
    name: Final[str]
    input: Final[dict[str, Any]]
    input_error: Final[str | None]
    raw_input: Final[str | None]
    input_refused: Final[str | None]

    def __init__(
        self,
        *,
        id: str,
        name: str,
        input: dict[str, Any],
        input_error: str | None = None,
        raw_input: str | None = None,
        input_refused: str | None = None,
        type: Literal["tool_use"] = "tool_use",
    ) -> None:
        self.type = type
        self.id = id
        self.name = name
        self.input = input
        self.input_error = input_error
        self.raw_input = raw_input
        self.input_refused = input_refused


ImageMediaType = Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
"""The image formats both wire formats take."""


class Base64ImageSource(_Block):
    """An image's bytes, base64-encoded, in `data`."""

    __slots__ = ("data", "media_type", "type")
    type: Final[Literal["base64"]]
    media_type: Final[ImageMediaType]
    data: Final[Annotated[str, NON_EMPTY]]

    def __init__(
        self, *, media_type: ImageMediaType, data: str, type: Literal["base64"] = "base64"
    ) -> None:
        self.type = type
        self.media_type = media_type
        self.data = data


class UrlImageSource(_Block):
    __slots__ = ("type", "url")
    type: Final[Literal["url"]]
    url: Final[Annotated[str, NON_EMPTY]]

    def __init__(self, *, url: str, type: Literal["url"] = "url") -> None:
        self.type = type
        self.url = url


ImageSource = Annotated[Base64ImageSource | UrlImageSource, Tagged("type")]


class ImageBlock(_Block):
    """An image the user gave, or a tool returned (inside its result's `images`)."""

    __slots__ = ("source", "type")
    type: Final[Literal["image"]]
    source: Final[ImageSource]

    def __init__(self, *, source: ImageSource, type: Literal["image"] = "image") -> None:
        self.type = type
        self.source = source


class ToolResultBlock(_Block):
    """A tool's result. `images`: those the tool returned beside its text (an MCP tool's, a
    picture Read opened); on the wire they follow the text in the result's content."""

    __slots__ = ("content", "images", "is_error", "tool_use_id", "type")
    type: Final[Literal["tool_result"]]
    tool_use_id: Final[str]
    content: Final[str]
    is_error: Final[bool]
    images: Final[tuple[ImageBlock, ...]]

    def __init__(
        self,
        *,
        tool_use_id: str,
        content: str,
        is_error: bool = False,
        images: Iterable[ImageBlock] = (),
        type: Literal["tool_result"] = "tool_result",
    ) -> None:
        self.type = type
        self.tool_use_id = tool_use_id
        self.content = content
        self.is_error = is_error
        self.images = tuple(images)

    def api_content(self) -> str | list[dict[str, Any]]:
        """The content as the Messages API (and Claude Code's files) shape it: the text, or a
        list of the text block (when there is text) and the image blocks."""
        if not self.images:
            return self.content
        text = [{"type": "text", "text": self.content}] if self.content else []
        return [*text, *(image.model_dump(mode="json") for image in self.images)]


ContentBlock = Annotated[
    TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock,
    Tagged("type"),
]

Role = Literal["user", "assistant"]


class Message(Record):
    """One conversation message. Immutable once built; the history only grows."""

    __slots__ = ("content", "role")
    _closed: ClassVar[bool] = True
    role: Final[Role]
    content: Final[tuple[ContentBlock, ...]]

    def __init__(
        self,
        *,
        role: Role,
        content: Iterable[ContentBlock],
    ) -> None:
        self.role = role
        self.content = tuple(content)

    @classmethod
    def user_text(cls, text: str) -> Message:
        return cls(role="user", content=(TextBlock(text=text),))

    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def tool_results(self) -> list[ToolResultBlock]:
        return [b for b in self.content if isinstance(b, ToolResultBlock)]

    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


MOST_TOKENS = 10**15
"""More tokens than any session will ever count: a count past it is damage (a usage field
of thousands of digits), and would overflow a float when priced."""

_Count = Annotated[int, AtMost(MOST_TOKENS)]


def is_token_count(value: object) -> TypeGuard[int]:
    """Whether `value` can be a token count as an endpoint or a session file gives one."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MOST_TOKENS


NESTED_USAGE_COUNTS = {
    "server_tool_use": ("web_search_requests",),
    "output_tokens_details": ("thinking_tokens",),
    "cache_creation": ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"),
}
"""The Messages API's usage objects within usage, and the counts `Usage` reads of each."""


def _sum(first: int | None, then: int | None) -> int | None:
    """Two counts added; None (not said) when neither was said."""
    return None if first is None and then is None else (first or 0) + (then or 0)


class Usage(Record):
    """Token counts of one model call, or of several added together, and the web searches the
    endpoint ran for it (billed apart from tokens). As JSON it has the Messages API's shape:
    the searches under `server_tool_use`, the thinking tokens under `output_tokens_details`,
    the cache written split by lifetime under `cache_creation`, and `service_tier`, each
    written only when the endpoint said it (the thinking and the searches: when not 0)."""

    __slots__ = (
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "cache_reads_unsaid",
        "ephemeral_1h_input_tokens",
        "ephemeral_5m_input_tokens",
        "input_tokens",
        "output_tokens",
        "service_tier",
        "thinking_tokens",
        "web_search_requests",
    )
    input_tokens: Final[_Count]
    output_tokens: Final[_Count]
    cache_creation_input_tokens: Final[_Count]
    cache_read_input_tokens: Final[_Count]
    web_search_requests: Final[_Count]
    thinking_tokens: Final[_Count]
    """Of `output_tokens`, those the model thought with (the API's `output_tokens_details`)."""
    ephemeral_5m_input_tokens: Final[_Count | None]
    """Of `cache_creation_input_tokens`, those written for five minutes and for an hour (the
    API's `cache_creation`); None: the endpoint did not split them."""
    ephemeral_1h_input_tokens: Final[_Count | None]
    service_tier: Final[str | None]
    """The tier the endpoint served the call at (`standard`, `priority`, `batch`), if said."""
    cache_reads_unsaid: Final[bool]
    """The endpoint said nothing of the prompt tokens it read from its cache (an
    OpenAI-compatible server without `prompt_tokens_details.cached_tokens`): those counted
    as `input_tokens` may have been cache reads (the cost ledger estimates them). Not part of
    the JSON form."""

    def __init__(
        self,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_creation_input_tokens: int = 0,
        cache_read_input_tokens: int = 0,
        web_search_requests: int = 0,
        thinking_tokens: int = 0,
        ephemeral_5m_input_tokens: int | None = None,
        ephemeral_1h_input_tokens: int | None = None,
        service_tier: str | None = None,
        cache_reads_unsaid: bool = False,
    ) -> None:
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cache_creation_input_tokens = cache_creation_input_tokens
        self.cache_read_input_tokens = cache_read_input_tokens
        self.web_search_requests = web_search_requests
        self.thinking_tokens = thinking_tokens
        self.ephemeral_5m_input_tokens = ephemeral_5m_input_tokens
        self.ephemeral_1h_input_tokens = ephemeral_1h_input_tokens
        self.service_tier = service_tier
        self.cache_reads_unsaid = cache_reads_unsaid

    @classmethod
    def _prepared(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)  # pyright: ignore[reportUnknownArgumentType]
        for nested, names in NESTED_USAGE_COUNTS.items():
            given = data.pop(nested, None)
            for name in names:
                value = given.get(name) if isinstance(given, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
                if is_token_count(value):
                    data.setdefault(name, value)
        tier = data.get("service_tier")
        if tier is not None and not isinstance(tier, str):
            data.pop("service_tier")  # a tier of another form is not one: not said
        return data  # pyright: ignore[reportUnknownVariableType]

    def model_dump(
        self,
        *,
        mode: DumpMode = "python",
        exclude: Collection[str] | None = None,
        exclude_none: bool = False,
    ) -> dict[str, Any]:
        data = super().model_dump(mode=mode, exclude=exclude, exclude_none=exclude_none)
        data.pop("cache_reads_unsaid", None)  # tether's own note, not the API's
        searches = data.pop("web_search_requests", 0)
        if searches:
            data["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": 0}
        thinking = data.pop("thinking_tokens", 0)
        if thinking:
            data["output_tokens_details"] = {"thinking_tokens": thinking}
        split = (
            data.pop("ephemeral_5m_input_tokens", None),
            data.pop("ephemeral_1h_input_tokens", None),
        )
        if split != (None, None):
            five, hour = split
            data["cache_creation"] = {
                "ephemeral_5m_input_tokens": five or 0,
                "ephemeral_1h_input_tokens": hour or 0,
            }
        if data.get("service_tier", 0) is None:
            del data["service_tier"]
        return data

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens
            + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            web_search_requests=self.web_search_requests + other.web_search_requests,
            thinking_tokens=self.thinking_tokens + other.thinking_tokens,
            ephemeral_5m_input_tokens=_sum(
                self.ephemeral_5m_input_tokens, other.ephemeral_5m_input_tokens
            ),
            ephemeral_1h_input_tokens=_sum(
                self.ephemeral_1h_input_tokens, other.ephemeral_1h_input_tokens
            ),
            service_tier=other.service_tier or self.service_tier,
        )

    @property
    def context_tokens(self) -> int:
        """Tokens the prompt of this call occupied in the context window."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "pause_turn",
    "refusal",
    "model_context_window_exceeded",
]
"""Why a reply ended, in the Messages API's words; `model_context_window_exceeded`: cut
because the context window filled up (reported as such, as Claude Code reports it)."""


class ToolSpec(Record):
    """What the model sees of a tool: its name, description and JSON schema."""

    __slots__ = ("description", "input_schema", "name")
    name: Final[str]
    description: Final[str]
    input_schema: Final[dict[str, Any]]

    def __init__(self, *, name: str, description: str, input_schema: dict[str, Any]) -> None:
        self.name = name
        self.description = description
        self.input_schema = input_schema
