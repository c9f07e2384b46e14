"""How big a message is, in characters of its JSON: what request sizes are estimated from.

An image counts as `IMAGE_TOKENS` worth of characters rather than its base64 text, which the
model does not read as text (a photo's base64 would otherwise look like hundreds of thousands
of tokens and trigger a compaction for nothing).
"""

from __future__ import annotations

from tether.protocol import Base64ImageSource, ContentBlock, ImageBlock, Message, ToolResultBlock

ASSUMED_CHARS_PER_TOKEN = 3.0
"""Before any response: below the 3.5 to 4 that prose and code usually take (so an estimate
errs high)."""

IMAGE_TOKENS = 1600
"""What one image is counted as: about what the API charges for an image at the size it scales
images down to (about 1.15 megapixels); more than most smaller images cost, so the estimate
errs high."""
IMAGE_CHARS = int(IMAGE_TOKENS * ASSUMED_CHARS_PER_TOKEN)


def message_chars(message: Message) -> int:
    """Characters of the message's JSON, each image counted as `IMAGE_CHARS`."""
    images = [image for block in message.content for image in _images_of(block)]
    if not images:
        return len(message.model_dump_json(exclude_none=True))
    light = Message(role=message.role, content=tuple(_without_data(b) for b in message.content))
    return len(light.model_dump_json(exclude_none=True)) + len(images) * IMAGE_CHARS


def _images_of(block: ContentBlock) -> tuple[ImageBlock, ...]:
    if isinstance(block, ImageBlock):
        return (block,)
    if isinstance(block, ToolResultBlock):
        return block.images
    return ()


def _without_data(block: ContentBlock) -> ContentBlock:
    """The block with its images' data left out (their size is counted apart)."""
    if isinstance(block, ImageBlock):
        return _blank(block)
    if isinstance(block, ToolResultBlock) and block.images:
        return block.model_copy(update={"images": tuple(_blank(i) for i in block.images)})
    return block


def _blank(image: ImageBlock) -> ImageBlock:
    source = image.source
    if isinstance(source, Base64ImageSource):
        return image.model_copy(update={"source": source.model_copy(update={"data": "-"})})
    return image
