"""What the model reads of an MCP result: tool results, resource contents and prompt messages
turned into text, and a tool's images. Text passes through; images in a format the model takes
are passed on as images; other binary content is described in one line, not sent. Results are
read as the wire's JSON, checked by the client that received them (`wire` for tether's own,
the SDK's types for the SDK's)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast, get_args

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


def tool_result(result: Mapping[str, Any], max_chars: int) -> McpResult:
    """Text blocks joined, images kept, other blocks described; `structuredContent` as JSON
    when no block carries text (servers that send both put the same data in the text)."""
    blocks: list[Mapping[str, Any]] = result.get("content") or []
    images = tuple(image for block in blocks if (image := as_image(block)) is not None)
    lines = [block_text(block) for block in blocks if as_image(block) is None]
    has_text = any(block.get("type") == "text" for block in blocks)
    structured = result.get("structuredContent")
    if structured is not None and not has_text:
        lines.append(json.dumps(structured, indent=2, ensure_ascii=False))
    whole = "\n".join(lines)
    full = len(whole) if len(whole) > max_chars else None
    is_error = result.get("isError") is True
    return McpResult(cut(whole, max_chars), is_error, images, full_chars=full)


def as_image(block: Mapping[str, Any]) -> ImageBlock | None:
    """An image block the model can be shown (a format both wires take), or None."""
    if block.get("type") != "image" or block.get("mimeType") not in IMAGE_MEDIA_TYPES:
        return None
    media_type = cast(ImageMediaType, block["mimeType"])
    data = cast(str, block["data"])
    return ImageBlock(source=Base64ImageSource(media_type=media_type, data="".join(data.split())))


def resource_text(contents: Sequence[Mapping[str, Any]]) -> str:
    """A resource read's contents: texts as they are, blobs described."""
    return "\n".join(_contents_text(item) for item in contents)


def prompt_text(result: Mapping[str, Any]) -> str:
    """A prompt's messages as one text. Roles are named only when both appear."""
    messages: list[Mapping[str, Any]] = result.get("messages") or []
    roles = {message["role"] for message in messages}
    parts: list[str] = []
    for message in messages:
        text = block_text(message["content"])
        role = cast(str, message["role"])
        parts.append(f"{role.capitalize()}: {text}" if len(roles) > 1 else text)
    return "\n\n".join(parts)


def block_text(block: Mapping[str, Any]) -> str:
    """One content block as text."""
    match block.get("type"):
        case "text":
            return cast(str, block["text"])
        case "image" | "audio":
            return f"[{block['type']}: {block['mimeType']}, {_decoded_size(block['data'])} bytes]"
        case "resource":
            return _contents_text(block["resource"])
        case "resource_link":
            return f"[resource link: {block['uri']} {block['name']}]"
        case other:
            return f"[{other} content]"


def cut(text: str, max_chars: int) -> str:
    """`text`, or its first `max_chars` characters and a note of how much was left out."""
    if len(text) <= max_chars:
        return text
    left_out = len(text) - max_chars
    return f"{text[:max_chars]}\n\n[output cut: {left_out:,} of {len(text):,} characters not shown]"


def _contents_text(contents: Mapping[str, Any]) -> str:
    text = contents.get("text")
    if isinstance(text, str):
        return text
    mime_type = contents.get("mimeType")
    mime = f" ({mime_type})" if mime_type else ""
    return f"[resource {contents['uri']}{mime}, {_decoded_size(contents.get('blob') or '')} bytes]"


def _decoded_size(b64: str) -> int:
    """Bytes the base64 text decodes to, without decoding it."""
    data = "".join(b64.split())
    return len(data) * 3 // 4 - len(data) + len(data.rstrip("="))
