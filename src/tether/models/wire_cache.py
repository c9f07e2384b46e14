"""Each history message converted to its wire form once, not once per request.

Messages are immutable and the history only grows, so a long session would otherwise redo the
same conversion every turn; with this the per-turn cost stays flat.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from tether.protocol import Message

T = TypeVar("T")


class ConvertedMessages(Generic[T]):
    """The converted form of the last history seen. A new request usually extends it: the
    shared prefix (compared by identity, which is cheap) is reused and only the rest converted.
    The results are shared: callers must copy before they change one."""

    def __init__(self, convert: Callable[[Message], T]) -> None:
        self._convert = convert
        self._messages: list[Message] = []
        self._converted: list[T] = []

    def convert_all(self, messages: Sequence[Message]) -> list[T]:
        same = list(map(operator.is_, messages, self._messages))  # at C speed: this runs per turn
        shared = same.index(False) if False in same else len(same)
        self._messages = list(messages)
        self._converted = self._converted[:shared] + [self._convert(m) for m in messages[shared:]]
        return list(self._converted)
