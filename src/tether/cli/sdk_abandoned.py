"""The end of a reply given up halfway (`--include-partial-messages`): a model call asked again
after its stream failed leaves a message a client has begun to assemble. Claude Code closes it
with a `message_stop` marked `abandoned_blocks` before the next reply's `message_start`, so
that no client keeps a dangling message."""

from __future__ import annotations

from tether.cli.sdk_line_shapes import Line, stream_line
from tether.cli.sdk_stream import PartialMessage


def abandoned(session_id: str, partial: PartialMessage | None, blocks_told: int) -> list[Line]:
    """The `message_stop` of `partial`, given up after `blocks_told` of its blocks were
    written as lines (the rest, from that index, are void); nothing when no message was
    begun."""
    if partial is None or not partial.started:
        return []
    line = stream_line(session_id, {"type": "message_stop"}, None, partial.message_id)
    line["abandoned_blocks"] = {
        "api_message_id": partial.message_id,
        "from_block_index": blocks_told,
    }
    return [line]
