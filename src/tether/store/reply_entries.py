"""How a reply is named in a session file: Claude Code writes an entry per content block, each
with the endpoint's message id (shared, so a reader joins them) and request id."""

from __future__ import annotations

import uuid
from typing import Final

from tether.slotted import Slotted, replaced


class ReplyEntries(Slotted):
    """How a reply is written to the session file, as Claude Code writes it: an entry per
    content block (`uuids`, one per block), each with the endpoint's message and request ids
    (a message id is made when the endpoint gave none: the entries of one reply share it),
    and the `model` that wrote it (its thinking blocks are signed for that model only)."""

    __slots__ = ("duration_ms", "message_id", "model", "request_id", "uuids")
    uuids: Final[tuple[str, ...]]
    message_id: Final[str | None]
    request_id: Final[str | None]
    model: Final[str | None]
    """The model that wrote the reply; None: not known (the session's, as far as it knows)."""
    duration_ms: Final[int]
    """What the model call took (Claude Code's `durationMs`: a resumed session's API time
    counts it); 0: not known."""

    def __init__(
        self,
        uuids: tuple[str, ...] = (),
        message_id: str | None = None,
        request_id: str | None = None,
        model: str | None = None,
        duration_ms: int = 0,
    ) -> None:
        self.uuids = uuids
        self.message_id = message_id
        self.request_id = request_id
        self.model = model
        self.duration_ms = duration_ms

    def fitted(self, count: int) -> ReplyEntries:
        """One uuid for each of `count` blocks: those named as the blocks closed, new ones
        for the blocks that closed only with the reply (or a reply not streamed)."""
        if len(self.uuids) == count:
            return self
        given = self.uuids[:count]
        return replaced(
            self, uuids=(*given, *(str(uuid.uuid4()) for _ in range(count - len(given))))
        )


def new_message_id() -> str:
    """A message id in the endpoint's form, for a reply whose endpoint gave none."""
    return f"msg_{uuid.uuid4().hex[:24]}"
