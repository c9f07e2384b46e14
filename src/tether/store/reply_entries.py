"""How a reply is named in a session file: Claude Code writes an entry per content block, each
with the endpoint's message id (shared, so a reader joins them) and request id."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class ReplyEntries:
    """How a reply is written to the session file, as Claude Code writes it: an entry per
    content block (`uuids`, one per block), each with the endpoint's message and request ids
    (a message id is made when the endpoint gave none: the entries of one reply share it)."""

    uuids: tuple[str, ...] = ()
    message_id: str | None = None
    request_id: str | None = None

    def fitted(self, count: int) -> ReplyEntries:
        """One uuid for each of `count` blocks: those named as the blocks closed, new ones
        for the blocks that closed only with the reply (or a reply not streamed)."""
        if len(self.uuids) == count:
            return self
        given = self.uuids[:count]
        return replace(
            self, uuids=(*given, *(str(uuid.uuid4()) for _ in range(count - len(given))))
        )


def new_message_id() -> str:
    """A message id in the endpoint's form, for a reply whose endpoint gave none."""
    return f"msg_{uuid.uuid4().hex[:24]}"
