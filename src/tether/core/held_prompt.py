"""The newest prompt on its way to a history's journal (`History.add_prompt`): held out of it
until a request sends it, or anything else is journaled after it, with the input added to its
message meanwhile (typed ahead, steering); and taken back out of the conversation, exactly its
blocks, when it cannot be sent (past the window): without a trace when it was never journaled,
else its entry withdrawn with the entries journaled after it in its message, which are held
again to be journaled with the next request."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from tether.core.sizing import TakenBack
from tether.protocol import ContentBlock, Message

Entry = tuple[tuple[ContentBlock, ...], str | None]
"""User blocks for the journal, and the uuid their entry takes (None: a new one)."""


class UserJournal(Protocol):
    """What of a journal (`history.Journal`) the held prompt writes to; its optional
    `withdraw()` takes the newest `user` call back."""

    def user(self, blocks: Sequence[ContentBlock], entry_uuid: str | None = None) -> None: ...


class HeldPrompt:
    """The newest prompt of a history and the user entries that wait with it."""

    def __init__(self) -> None:
        self._waiting: list[Entry] = []
        """User entries in the conversation but not yet in the journal: the prompt, and
        input added to its message before it was sent, in order."""
        self._prompt_waits = False
        """Whether the first of `waiting` is the newest prompt."""
        self.blocks: tuple[ContentBlock, ...] = ()
        """The blocks of the newest prompt (the objects themselves)."""
        self._with_prompt: list[tuple[ContentBlock, ...]] = []
        """The user entries journaled after the newest prompt, in its message: a take-back
        withdraws them with it from the journal, and holds them again."""

    def hold(
        self, blocks: tuple[ContentBlock, ...], entry_uuid: str | None, journaled: bool
    ) -> None:
        """`blocks`, just added, are the newest prompt; with a journal (`journaled`), held
        out of it (the previous prompt released first: see `release`)."""
        self._with_prompt, self.blocks = [], blocks
        if journaled:
            self._waiting, self._prompt_waits = [(blocks, entry_uuid)], True

    def add_typed(self, blocks: tuple[ContentBlock, ...], entry_uuid: str | None) -> bool:
        """Input added to the prompt's message before it was sent: held with it, so that a
        prompt taken back leaves it, and nothing unsent, in the journal. False when nothing
        is held (the caller journals it)."""
        if not self._waiting:
            return False
        self._waiting.append((blocks, entry_uuid))
        return True

    def journaled(self, blocks: tuple[ContentBlock, ...], message: Message) -> None:
        """`blocks` (no tool results) were journaled into `message`: withdrawn with the
        prompt if `message` holds it."""
        if self.in_message(message):
            self._with_prompt.append(blocks)

    def release(self, journal: UserJournal | None, newest: Message | None) -> bool:
        """Journal what waits, if anything: it is about to be sent (or something comes after
        it). `newest` is the newest message. Returns whether anything waited."""
        held, self._waiting = self._waiting, []
        if not held or journal is None:
            return False
        prompt, self._prompt_waits = self._prompt_waits, False
        for blocks, entry_uuid in held:
            journal.user(blocks, entry_uuid)
        if prompt:
            self._with_prompt = [blocks for blocks, _ in held[1:]]
        elif newest is not None and self.in_message(newest):
            self._with_prompt.extend(blocks for blocks, _ in held)
        return True

    def in_message(self, message: Message) -> bool:
        """Whether `message` is a user message holding the newest prompt's blocks."""
        if message.role != "user" or not self.blocks:
            return False
        ids = {id(block) for block in message.content}
        return all(id(block) in ids for block in self.blocks)

    def take_back(self, messages: list[Message], journal: UserJournal | None) -> TakenBack | None:
        """Take the prompt's blocks back out of the newest of `messages`, and only them (see
        `History.take_back`). Returns None, changing nothing, once a reply came."""
        newest = messages[-1] if messages else None
        if newest is None or not self.in_message(newest):
            return None
        prompt = {id(block) for block in self.blocks}
        kept = tuple(block for block in newest.content if id(block) not in prompt)
        if kept:
            messages[-1] = Message(role="user", content=kept)
        else:
            messages.pop()
        self.blocks = ()
        if self._prompt_waits:
            self._waiting, self._prompt_waits = self._waiting[1:], False
            return "unsaved"
        withdraw: Callable[[], None] | None = getattr(journal, "withdraw", None)
        if withdraw is not None:
            for _ in range(len(self._with_prompt) + 1):
                withdraw()
            self._waiting = [(blocks, None) for blocks in self._with_prompt] + self._waiting
        self._with_prompt = []
        return "withdrawn"
