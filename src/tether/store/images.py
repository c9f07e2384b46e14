"""Images that the API would refuse: left out when a session file is read back, and where an
image enters a session (a client's message, a tool's result; see `core.boundary`).

One such block makes every request of the resumed session fail (HTTP 400), so it must not be
replayed: an image is sent only in a user message (its own, or a tool result's), its media
type one of the four both wires take, its data base64 that decodes to a file of that type
(the rules `tether.testing.image_rules` holds the fake server to). The reader says what it
left out.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, cast, get_args

from tether.protocol import ImageMediaType

_MEDIA_TYPES: frozenset[str] = frozenset(get_args(ImageMediaType))
_SIGNATURES: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}


_NOT_WEB = "an image whose URL is not an http(s) address"


def without_bad_images(content: object, role: str) -> tuple[object, list[str]]:
    """`content` (a message's blocks, as read) without the images the API would refuse, the
    images of its tool results included; and why each one left out was. Content that is not
    a list is returned as it is (validation reports it)."""
    if not isinstance(content, list):
        return content, []
    kept: list[object] = []
    reasons: list[str] = []
    for item in cast(list[Any], content):
        block = cast(dict[str, Any], item) if isinstance(item, dict) else None
        if block is not None and block.get("type") == "image":
            reason = image_problem(block, role)
            if reason is not None:
                reasons.append(reason)
                continue
        elif block is not None and isinstance(block.get("images"), list):
            images, dropped = without_bad_images(block["images"], role)
            reasons.extend(dropped)
            block = {**block, "images": images}
        kept.append(block if block is not None else item)
    return kept, reasons


def image_problem(block: dict[str, Any], role: str) -> str | None:
    """Why the API would refuse this image block in a message of `role`, if it would."""
    if role != "user":
        return f"an image in an {role} message"
    source = block.get("source")
    if not isinstance(source, dict):
        return "an image without a source"
    source = cast(dict[str, Any], source)
    if source.get("type") == "url":
        url = source.get("url")
        if not isinstance(url, str) or not url:
            return "an image without a URL"
        # The APIs fetch only web addresses (file://, data: in a url source are refused).
        return None if url.lower().startswith(("http://", "https://")) else _NOT_WEB
    if source.get("type") != "base64":
        return "an image of an unknown source type"
    media_type = source.get("media_type")
    if not isinstance(media_type, str) or media_type not in _MEDIA_TYPES:
        return "an image of a media type the API does not take"
    return _data_problem(media_type, source.get("data"))


def _data_problem(media_type: str, data: object) -> str | None:
    if not isinstance(data, str) or not data:
        return "an image without data"
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return "an image whose data is not valid base64"
    webp = media_type != "image/webp" or decoded[8:12] == b"WEBP"
    if not decoded.startswith(_SIGNATURES[media_type]) or not webp:
        return f"an image whose data is not {media_type}"
    return None
