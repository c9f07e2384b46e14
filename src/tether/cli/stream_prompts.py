"""The client's prompts on their way to the stream-json session's turns: those waiting for a
turn of their own, those sent while a turn runs (which join it: the model reads them at its
next call), and what a turn ended without reading (the next turn's, before anything queued
since). What the client is told is still queued, and what is named as not delivered when no
turn will come, are read here."""

from __future__ import annotations

import asyncio

from tether.cli.stream_stderr import not_delivered
from tether.core.session import Session
from tether.protocol import UserInput


def steerable(prompt: UserInput) -> bool:
    """Whether `prompt` may join a running turn: words only (a command or an image starts a
    turn of its own)."""
    text = prompt.text.strip()
    return not prompt.content and bool(text) and not text.startswith("/")


class PromptQueue:
    def __init__(self) -> None:
        self.prompts: asyncio.Queue[UserInput | None] = asyncio.Queue()
        """Prompts for a turn of their own; None: the input ended (or a stop)."""
        self._waiting: list[str] = []
        """Uuids of the client's prompts queued for a turn of their own."""
        self._carried: list[UserInput] = []
        """What a turn ended without reading: the next turn's, before anything queued since
        (the end of input included)."""
        self._held: list[UserInput] = []
        """Prompts for the running turn its model has not begun to read (`turn_began`)."""
        self._holding = False
        """The running turn's first model call has not begun: prompts are held for its next."""
        self._steered: list[str] = []
        """Uuids of the prompts sent during the running turn (the model reads them at its
        next call; the last `len(session.queued)` of them it has not read yet)."""

    def put(self, prompt: UserInput) -> None:
        """A prompt for a turn of its own (its uuid set)."""
        assert prompt.uuid is not None
        self._waiting.append(prompt.uuid)
        self.prompts.put_nowait(prompt)

    def steer(self, running: Session, prompt: UserInput) -> None:
        """A prompt sent while `running`'s turn runs: it joins that turn (held, as those
        waiting when it began, until its first model call has begun)."""
        assert prompt.uuid is not None
        if self._holding:
            self._waiting.append(prompt.uuid)
            self._held.append(prompt)
            return
        running.steer(prompt.text)
        self._steered.append(prompt.uuid)

    def end(self) -> None:
        """No more prompts: the turns end once those queued have run."""
        self.prompts.put_nowait(None)

    async def next(self) -> UserInput | None:
        """The next turn's prompt (None: the input ended)."""
        prompt = self._carried.pop(0) if self._carried else await self.prompts.get()
        if prompt is not None and prompt.uuid in self._waiting:
            self._waiting.remove(prompt.uuid)
        return prompt

    def carrying(self) -> bool:
        """Whether a turn ended without reading what was sent during it (the next turn's)."""
        return bool(self._carried)

    def still_queued(self, running: Session | None) -> list[str]:
        """Uuids of the client's prompts the model has not read yet: sent during the running
        turn and not yet delivered, then those waiting for a turn. An interrupt leaves them
        queued (they run next), as Claude Code's `still_queued` says."""
        unread = len(running.queued) if running is not None else 0
        steered = self._steered[len(self._steered) - unread :] if unread else []
        return [*steered, *self._waiting]

    def turn_began(self) -> None:
        """A turn began: the prompts already waiting for a turn of their own are held to join
        it at its second model call, as those sent while it runs (as Claude Code: prompts
        sent before the first turn starts make one more turn, not one each), up to the
        first that cannot (a command, an image, the input's end)."""
        self._steered = []
        self._holding = True
        waiting: list[UserInput | None] = []
        while not self.prompts.empty():
            waiting.append(self.prompts.get_nowait())
        while waiting and (prompt := waiting[0]) is not None and steerable(prompt):
            self._held.append(prompt)
            waiting.pop(0)
        for prompt in waiting:
            self.prompts.put_nowait(prompt)

    def call_began(self, running: Session) -> None:
        """The turn's model call began: the prompts held join the turn (its next call reads
        them)."""
        self._holding = False
        held, self._held = self._held, []
        for prompt in held:
            self._waiting.remove(str(prompt.uuid))
            self.steer(running, prompt)

    def turn_ended(self, session: Session, stopped_why: str | None) -> None:
        """What the turn ended without reading (sent after its last model call, or held for
        it): the next turn's prompt, in one (as Claude Code joins them), or named as not
        delivered when the process was stopped (`stopped_why`) and no next turn reads it."""
        unread = session.take_queued()
        uuids = self._steered[len(self._steered) - len(unread) :] if unread else []
        self._holding = False
        held, self._held = self._held, []
        unread += [prompt.text for prompt in held]
        uuids += [str(prompt.uuid) for prompt in held]
        for named in uuids:
            if named in self._waiting:
                self._waiting.remove(named)
        if unread and stopped_why is not None:
            for text in unread:
                not_delivered(text, 0, stopped_why)
        elif unread:
            self._waiting.append(uuids[0])
            self._carried.append(UserInput(text="\n".join(unread), uuid=uuids[0]))

    def drop(self, reason: str) -> None:
        """Prompts waiting for a turn that will not come: each is named, so that the user's
        words do not vanish without a trace."""
        while self._carried or not self.prompts.empty():
            prompt = self._carried.pop(0) if self._carried else self.prompts.get_nowait()
            if prompt is not None:
                images = sum(block.type == "image" for block in prompt.content)
                not_delivered(prompt.text, images, reason)
