"""What a `History` tells of each change as it happens (`Journal`: a session file), and how a
user message is told: each tool result an entry of its own, as Claude Code writes them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from tether.protocol import ContentBlock, Message, ToolResultBlock, Usage
from tether.store import ReplyEntries


class Journal(Protocol):
    """Where a history records each change as it happens (a session file). Replaying the same
    calls on an empty `History` rebuilds it exactly: see `History.replay_*`."""

    def user(
        self, blocks: Sequence[ContentBlock], entry_uuid: str | None = None, structured: Any = None
    ) -> None: ...

    def assistant(self, message: Message, usage: Usage | None, reply: ReplyEntries) -> None: ...

    def compacted(self, summary: Sequence[Message], kept: int) -> None: ...

    def window_reported(
        self, model: str, tokens: int, chars_per_token: float | None = None
    ) -> None: ...

    # Optional: `estimate_measured(model, chars_per_token)`, what accepted requests taught
    # the estimate (`History.measured`); `not_saved() -> str | None`, why what was recorded
    # is not all kept yet (after trying again); no tool runs while it says so
    # (`History.not_saved`). `withdraw()`: the newest `user` call is taken back
    # (`History.take_back`).


def journal_user(
    journal: Journal,
    admitted: Sequence[ContentBlock],
    entry_uuid: str | None,
    result_uuids: Sequence[str],
    structured: Sequence[Any],
) -> None:
    """Tell `journal` of user content `History.add_user` admitted: one entry (`entry_uuid`),
    or, with `result_uuids` one per tool result, each result an entry of its own (what
    follows the results goes with the last), with what its call did as data from
    `structured`, when given one per result (its `toolUseResult`)."""
    results = [b for b in admitted if isinstance(b, ToolResultBlock)]
    if not result_uuids or len(result_uuids) != len(results):
        journal.user(admitted, entry_uuid)
        return
    others = [b for b in admitted if not isinstance(b, ToolResultBlock)]
    data = structured if len(structured) == len(results) else [None] * len(results)
    for index, (result, named) in enumerate(zip(results, result_uuids, strict=True)):
        blocks = [result, *others] if index == len(results) - 1 else [result]
        if data[index] is None:
            journal.user(blocks, named)
        else:
            journal.user(blocks, named, data[index])
