"""Each history message converted to its wire form once, not once per request.

Messages are immutable and the history only grows, so a long session would otherwise redo the
same conversion every turn; with this the per-turn cost stays flat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from tether.protocol import Message

T = TypeVar("T")


class ConvertedMessages(Generic[T]):
    """Converted forms keyed by message identity; entries for messages no longer sent are
    dropped at each call, so memory follows the history. The results are shared: callers must
    copy before they change one."""

    def __init__(self, convert: Callable[[Message], T]) -> None:
        self._convert = convert
        self._entries: dict[int, tuple[Message, T]] = {}

    def convert_all(self, messages: Sequence[Message]) -> list[T]:
        entries: dict[int, tuple[Message, T]] = {}
        converted: list[T] = []
        for message in messages:
            entry = self._entries.get(id(message))
            if entry is None or entry[0] is not message:
                entry = (message, self._convert(message))
            entries[id(message)] = entry
            converted.append(entry[1])
        self._entries = entries
        return converted
