"""The real APIs' rules for images, as the fake server enforces them, and what an image counts
for in its token estimates.

Messages API: an `image` block (in a user message, or in a tool result's content) has a
`base64` source whose `media_type` is one of four and whose data decodes to an image of that
type, or a `url` source; assistant messages carry none. Chat Completions: `image_url` parts in
user messages only, their URL an http(s) URL or a base64 data URL of an image.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any, cast

IMAGE_TOKENS = 1600
"""What the fake server counts an image as (about what the API charges for one at the size it
scales images down to), instead of its base64 text."""

MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}
_DATA_URL = re.compile(r"data:(image/[a-z+.-]+);base64,(.*)", re.DOTALL)


def anthropic_image_problem(block: Mapping[str, Any], role: object) -> str | None:
    """Why the API refuses an `image` block, if it does (`image.source...: ...`)."""
    if role == "assistant":
        return "image: Image content is not allowed in assistant messages"
    source = block.get("source")
    if not isinstance(source, dict):
        return "image.source: Field required"
    source = cast(dict[str, Any], source)
    kind = source.get("type")
    if kind == "url":
        url = source.get("url")
        return None if isinstance(url, str) and url else "image.source.url.url: Field required"
    if kind != "base64":
        return "image.source: Input tag does not match any of the expected tags: 'base64', 'url'"
    media_type = source.get("media_type")
    if media_type not in MEDIA_TYPES:
        allowed = ", ".join(f"'{t}'" for t in MEDIA_TYPES)
        return f"image.source.base64.media_type: Input should be {allowed}"
    return _data_problem(str(media_type), source.get("data"), "image.source.base64.data")


def openai_images_problem(messages: list[dict[str, Any]]) -> tuple[int, str] | None:
    """The first message with an `image_url` part Chat Completions refuses, and why."""
    for index, message in enumerate(messages):
        content = message.get("content")
        parts = cast(list[Any], content) if isinstance(content, list) else []
        for part in parts:
            if isinstance(part, dict) and cast(dict[str, Any], part).get("type") == "image_url":
                problem = openai_image_problem(cast(dict[str, Any], part), message.get("role"))
                if problem is not None:
                    return index, problem
    return None


def openai_image_problem(part: Mapping[str, Any], role: object) -> str | None:
    """Why Chat Completions refuses an `image_url` content part, if it does."""
    if role != "user":
        return (
            "Image URLs are only allowed for messages with role 'user', but this message with "
            f"role '{role}' contains an image URL."
        )
    image_url = part.get("image_url")
    url = cast(dict[str, Any], image_url).get("url") if isinstance(image_url, dict) else None
    if not isinstance(url, str) or not url:
        return "Missing required parameter: 'image_url.url'."
    if url.startswith(("http://", "https://")):
        return None
    found = _DATA_URL.fullmatch(url)
    if found is None:
        return "Invalid image URL: expected an http(s) URL or a base64 data URL of an image."
    return _data_problem(found.group(1), found.group(2), "image_url.url")


def without_image_data(value: Any) -> tuple[Any, int]:
    """`value` (a request body, or part of one) with every image's data left out, and how many
    images there were: their size is counted as `IMAGE_TOKENS` each."""
    if isinstance(value, list):
        pairs = [without_image_data(item) for item in cast(list[Any], value)]
        return [item for item, _ in pairs], sum(count for _, count in pairs)
    if not isinstance(value, dict):
        return value, 0
    value = cast(dict[str, Any], value)
    if value.get("type") == "image":
        return {"type": "image"}, 1
    if value.get("type") == "image_url":
        return {"type": "image_url"}, 1
    pairs = {key: without_image_data(item) for key, item in value.items()}
    return {key: item for key, (item, _) in pairs.items()}, sum(c for _, c in pairs.values())


def _data_problem(media_type: str, data: object, where: str) -> str | None:
    if not isinstance(data, str) or not data:
        return f"{where}: Field required"
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"{where}: Invalid base64 data"
    if not decoded.startswith(_MAGIC.get(media_type, (b"",))):
        return f"{where}: Image does not match the provided media type {media_type}"
    if media_type == "image/webp" and decoded[8:12] != b"WEBP":
        return f"{where}: Image does not match the provided media type {media_type}"
    return None
