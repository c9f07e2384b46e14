"""Messages and content blocks: the conversation as tether stores and sends it.

The shapes follow the Anthropic Messages API, the richer of the two wire formats; the
OpenAI-compatible adapter converts to and from them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeGuard

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)


class _Block(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class TextBlock(_Block):
    type: Literal["text"] = "text"
    text: str


class ThinkingBlock(_Block):
    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str = ""


class RedactedThinkingBlock(_Block):
    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class ToolUseBlock(_Block):
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]
    input_error: str | None = Field(
        default=None,
        description="Set when the model's arguments were not a JSON object; never sent to the API.",
    )
    raw_input: str | None = Field(
        default=None, description="The arguments exactly as streamed, kept when they did not parse."
    )
    input_refused: str | None = Field(
        default=None,
        description="Why tether refuses the arguments as the model gave them (text that is not "
        "Unicode, replaced in `input` so the history can be sent); the call is answered with it "
        "and not run. Never sent to the API.",
    )


ImageMediaType = Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
"""The image formats both wire formats take."""


class Base64ImageSource(_Block):
    type: Literal["base64"] = "base64"
    media_type: ImageMediaType
    data: str = Field(min_length=1, description="The image file's bytes, base64-encoded.")


class UrlImageSource(_Block):
    type: Literal["url"] = "url"
    url: str = Field(min_length=1)


class ImageBlock(_Block):
    """An image the user gave, or a tool returned (inside its result's `images`)."""

    type: Literal["image"] = "image"
    source: Annotated[Base64ImageSource | UrlImageSource, Field(discriminator="type")]


class ToolResultBlock(_Block):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False
    images: tuple[ImageBlock, ...] = Field(
        default=(),
        description="Images the tool returned beside its text (an MCP tool's, a picture Read "
        "opened); on the wire they follow the text in the result's content.",
    )

    def api_content(self) -> str | list[dict[str, Any]]:
        """The content as the Messages API (and Claude Code's files) shape it: the text, or a
        list of the text block (when there is text) and the image blocks."""
        if not self.images:
            return self.content
        text = [{"type": "text", "text": self.content}] if self.content else []
        return [*text, *(image.model_dump(mode="json") for image in self.images)]


ContentBlock = Annotated[
    TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock,
    Field(discriminator="type"),
]

Role = Literal["user", "assistant"]


class Message(BaseModel):
    """One conversation message. Immutable once built; the history only grows."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    role: Role
    content: tuple[ContentBlock, ...]

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

_Count = Annotated[int, Field(le=MOST_TOKENS)]


def is_token_count(value: object) -> TypeGuard[int]:
    """Whether `value` can be a token count as an endpoint or a session file gives one."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MOST_TOKENS


class Usage(BaseModel):
    """Token counts of one model call, or of several added together, and the web searches the
    endpoint ran for it (billed apart from tokens). As JSON it has the Messages API's shape:
    the searches under `server_tool_use` (written only when there were some)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    input_tokens: _Count = 0
    output_tokens: _Count = 0
    cache_creation_input_tokens: _Count = 0
    cache_read_input_tokens: _Count = 0
    web_search_requests: _Count = 0

    @model_validator(mode="before")
    @classmethod
    def _from_api_shape(cls, data: Any) -> Any:
        if isinstance(data, dict) and "server_tool_use" in data:
            data = dict(data)  # pyright: ignore[reportUnknownArgumentType]
            server = data.pop("server_tool_use")
            searches = server.get("web_search_requests") if isinstance(server, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            if is_token_count(searches):
                data.setdefault("web_search_requests", searches)
        return data  # pyright: ignore[reportUnknownVariableType]

    @model_serializer(mode="wrap")
    def _to_api_shape(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        searches = data.pop("web_search_requests", 0)
        if searches:
            data["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": 0}
        return data

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens
            + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            web_search_requests=self.web_search_requests + other.web_search_requests,
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


class ToolSpec(BaseModel):
    """What the model sees of a tool: its name, description and JSON schema."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str
    description: str
    input_schema: dict[str, Any]
