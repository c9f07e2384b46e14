"""Read of a picture: a PNG, JPEG, GIF or WebP file is shown to the model as an image, as
Claude Code's Read does, when it is small enough to send as it is (tether does not scale
images down)."""

from __future__ import annotations

import base64
import os
from typing import BinaryIO

from tether.protocol import Base64ImageSource, ImageBlock, ImageMediaType, ToolError
from tether.tools.base import ToolOutput
from tether.tools.builtin.files import human_size

MAX_IMAGE_BYTES = 380_000
"""The largest picture shown. tether does not scale images down (Claude Code does), and a
picture travels whole: to the model (within the 5 MB an API takes per image), and to an Agent
SDK client in one stream-json line that carries it twice (the result, and its
`tool_use_result`), which the SDK reads with a 1 MiB line buffer by default."""

_SIGNATURES: tuple[tuple[bytes, ImageMediaType], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(head: bytes) -> ImageMediaType | None:
    """The picture format the first bytes of a file say it is, if one the model can see."""
    for signature, media_type in _SIGNATURES:
        if head.startswith(signature):
            return media_type
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def read_image(f: BinaryIO, media_type: ImageMediaType, shown: str) -> ToolOutput:
    """The open file `f` as an image for the model; refused when too large to send."""
    size = os.fstat(f.fileno()).st_size
    if size > MAX_IMAGE_BYTES:
        raise ToolError(
            f"{shown} is an image of {human_size(size)}: too large to show (at most "
            f"{human_size(MAX_IMAGE_BYTES)}). Make a smaller copy with Bash (for example with "
            "ImageMagick's `convert -resize`) and Read that."
        )
    f.seek(0)
    data = f.read(MAX_IMAGE_BYTES + 1)
    encoded = base64.b64encode(data).decode("ascii")
    image = ImageBlock(source=Base64ImageSource(media_type=media_type, data=encoded))
    kind = media_type.removeprefix("image/").upper()
    structured = {
        "type": "image",
        "file": {"base64": encoded, "type": media_type, "originalSize": len(data)},
    }
    text = f"(the image {shown}: {kind}, {human_size(len(data))}; shown below)"
    return ToolOutput(text, images=(image,), structured=structured)
