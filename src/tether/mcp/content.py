"""What the model reads of an MCP result: tool results, resource contents and prompt messages
turned into text, and a tool's images. Text passes through; images in a format the model
takes are passed on as images; other binary content is described in one line, not sent."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast, get_args

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from tether.protocol import Base64ImageSource, ImageBlock, ImageMediaType

IMAGE_MEDIA_TYPES = frozenset(get_args(ImageMediaType))


@dataclass(frozen=True)
class McpResult:
    """A tool call's or resource read's outcome as the model will read it."""

    text: str
    is_error: bool = False
    images: tuple[ImageBlock, ...] = ()
    """The result's images the model can see (its other binary content is described)."""
    full_chars: int | None = None
    """The text's length before it was cut to the limit, when it was."""


def tool_result(result: CallToolResult, max_chars: int) -> McpResult:
    """Text blocks joined, images kept, other blocks described; `structuredContent` as JSON
    when no block carries text (servers that send both put the same data in the text)."""
    images = tuple(image for block in result.content if (image := as_image(block)) is not None)
    lines = [block_text(block) for block in result.content if as_image(block) is None]
    has_text = any(isinstance(block, TextContent) for block in result.content)
    if result.structured_content is not None and not has_text:
        lines.append(json.dumps(result.structured_content, indent=2, ensure_ascii=False))
    whole = "\n".join(lines)
    full = len(whole) if len(whole) > max_chars else None
    return McpResult(cut(whole, max_chars), result.is_error, images, full_chars=full)


def as_image(block: ContentBlock) -> ImageBlock | None:
    """An image block the model can be shown (a format both wires take), or None."""
    if not isinstance(block, ImageContent) or block.mime_type not in IMAGE_MEDIA_TYPES:
        return None
    media_type = cast(ImageMediaType, block.mime_type)
    return ImageBlock(
        source=Base64ImageSource(media_type=media_type, data="".join(block.data.split()))
    )


def resource_text(contents: Sequence[TextResourceContents | BlobResourceContents]) -> str:
    """A resource read's contents: texts as they are, blobs described."""
    return "\n".join(_contents_text(item) for item in contents)


def prompt_text(result: GetPromptResult) -> str:
    """A prompt's messages as one text. Roles are named only when both appear."""
    roles = {message.role for message in result.messages}
    parts: list[str] = []
    for message in result.messages:
        text = block_text(message.content)
        parts.append(f"{message.role.capitalize()}: {text}" if len(roles) > 1 else text)
    return "\n\n".join(parts)


def block_text(block: ContentBlock) -> str:
    """One content block as text."""
    match block:
        case TextContent():
            return block.text
        case ImageContent() | AudioContent():
            return f"[{block.type}: {block.mime_type}, {_decoded_size(block.data)} bytes]"
        case EmbeddedResource():
            return _contents_text(block.resource)
        case ResourceLink():
            return f"[resource link: {block.uri} {block.name}]"


def cut(text: str, max_chars: int) -> str:
    """`text`, or its first `max_chars` characters and a note of how much was left out."""
    if len(text) <= max_chars:
        return text
    left_out = len(text) - max_chars
    return f"{text[:max_chars]}\n\n[output cut: {left_out:,} of {len(text):,} characters not shown]"


def _contents_text(contents: TextResourceContents | BlobResourceContents) -> str:
    if isinstance(contents, TextResourceContents):
        return contents.text
    mime = f" ({contents.mime_type})" if contents.mime_type else ""
    return f"[resource {contents.uri}{mime}, {_decoded_size(contents.blob)} bytes]"


def _decoded_size(b64: str) -> int:
    """Bytes the base64 text decodes to, without decoding it."""
    data = "".join(b64.split())
    return len(data) * 3 // 4 - len(data) + len(data.rstrip("="))
