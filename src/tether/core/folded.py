"""The oldest messages of a resumed session, held as compressed JSON rather than objects.

A session file of a hundred thousand small messages would take more than four times its size
as message objects, yet no request sends more than the newest window's worth of them: the
older part would be compacted or left out before being sent anyway. A resumed history folds
that part away (see `History.fold`): its messages are kept here, in order, as JSON lines
compressed in chunks (a few bytes each), and read back only on demand (`Folded.messages`).
The request sees a note standing for them instead (`stand_in`).
"""

from __future__ import annotations

import bisect
import zlib
from array import array
from collections import deque
from collections.abc import Iterator, Sequence

from tether.core.carried import EARLIER_PROMPT_MARK, OLDEST_LEFT_OUT, left_out_note, user_prompts
from tether.protocol import Message, TextBlock

CHUNK_BYTES = 256 * 1024
"""JSON gathered before it is compressed: big enough to compress well, small enough to be
nothing beside the window's worth of messages held in full."""


class Folded:
    """Messages in order, as compressed JSON lines (see the module's doc), and the user's
    newest prompts among them, word for word within `prompt_chars`: a compaction carries
    those into the conversation it makes (see `carried`), and a folded message is not there
    to be read from."""

    def __init__(self, prompt_chars: int = 0) -> None:
        self.count = 0
        self.prompt_chars = prompt_chars
        self._chunks: list[bytes] = []
        self._open = bytearray()
        self._prompts: deque[tuple[int, str]] = deque()
        """(index of its message, prompt): the newest, within `prompt_chars`."""
        self._prompt_cost = 0
        self._dropped = array("q")
        """Indexes of the messages of the prompts dropped for room, one per prompt."""
        self._noted: list[tuple[int, int]] = []
        """(index, count) of the prompts an earlier compaction's note says it left out."""

    def add(self, message: Message) -> None:
        index = self.count
        self._open += message.model_dump_json().encode()
        self._open += b"\n"
        self.count += 1
        if len(self._open) >= CHUNK_BYTES:
            self._chunks.append(zlib.compress(bytes(self._open)))
            self._open = bytearray()
        if message.role != "user":
            return
        prompts, noted = user_prompts([message])
        if noted:
            self._noted.append((index, noted))
        for prompt in prompts:
            self._prompts.append((index, prompt))
            self._prompt_cost += _cost(prompt)
        while self._prompts and self._prompt_cost > self.prompt_chars:
            dropped, prompt = self._prompts.popleft()
            self._prompt_cost -= _cost(prompt)
            self._dropped.append(dropped)

    def forget_before(self, cut: int) -> None:
        """A compaction cut the conversation at `cut`: the prompts of the messages before it
        are its summary's to carry, not these."""
        while self._prompts and self._prompts[0][0] < cut:
            self._prompt_cost -= _cost(self._prompts.popleft()[1])
        del self._dropped[: bisect.bisect_left(self._dropped, cut)]
        self._noted = [(i, n) for i, n in self._noted if i >= cut]

    def carried(self) -> tuple[TextBlock, ...]:
        """The folded prompts as a compaction carries them: a note of how many are left out,
        then the newest, oldest first."""
        left_out = len(self._dropped) + sum(n for _, n in self._noted)
        kept = tuple(TextBlock(text=EARLIER_PROMPT_MARK + p) for _, p in self._prompts)
        return (left_out_note(left_out), *kept) if left_out else kept

    @property
    def held_bytes(self) -> int:
        """What the folded messages take (compressed, and the chunk being filled)."""
        return sum(len(c) for c in self._chunks) + len(self._open)

    def messages(self) -> Iterator[Message]:
        """The folded messages, oldest first, each built as it is reached."""
        for index in range(len(self._chunks) + 1):  # one chunk decompressed at a time
            data = zlib.decompress(self._chunks[index]) if index < len(self._chunks) else self._open
            for line in bytes(data).splitlines():
                yield Message.model_validate_json(line)


def _cost(prompt: str) -> int:
    return len(EARLIER_PROMPT_MARK) + len(prompt) + 30  # as `carried.carried_prompts` counts


def stand_in(
    left_out: int, summary: Sequence[Message], carried: Sequence[TextBlock], first: Message | None
) -> tuple[Message, ...]:
    """What a request sends in place of `left_out` folded messages, before the held messages
    whose first is `first`: a user message with the note, the text of the last compaction's
    summary message (`summary`: what it summarised and carried), and `carried` (the folded
    part's prompts), merged into `first` when that is a user message so that roles alternate.
    Returns the messages that replace `first` (or precede the held ones when there is none)."""
    kept = tuple(
        b for m in summary[:1] if m.role == "user" for b in m.content if isinstance(b, TextBlock)
    )
    head = (TextBlock(text=OLDEST_LEFT_OUT.format(count=left_out)), *kept, *carried)
    if first is None:
        return (Message(role="user", content=head),)
    if first.role == "user":
        return (Message(role="user", content=(*head, *first.content)),)
    return (Message(role="user", content=head), first)
