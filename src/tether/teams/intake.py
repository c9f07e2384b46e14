"""A teammate's messages between its mailbox and its session: each new one made a letter for
the model (a redelivery of one the session holds, or of the shutdown that ended the last run,
acknowledged and dropped), acknowledged once the session holds it and its model was given it,
told to its sender when no turn could read it (`unread.py`), and what the newest one asks
shown as the member's current task in `team status`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from tether.core.session import Session
from tether.store.mailbox import Delivery, TeamStore
from tether.store.mailbox_records import INVALID_KIND
from tether.store.task_records import StoreUnavailable
from tether.teams.letters import held_ids, letter, newest_letter
from tether.teams.link import TeamLink
from tether.teams.protocol import TASK_KINDS, ProtocolError
from tether.teams.unread import not_read

CURRENT_TASK_CHARS = 200
"""How much of what a message asks `team status` shows as the current task."""


@dataclass
class Intake:
    link: TeamLink
    inbox: TeamStore
    """The store connection the messages were received on (their acknowledgements go there)."""
    session: Session
    say: Callable[[str], None]
    shutdown_done: str | None = None
    """The shutdown request that ended the last run (`team down`): done, not replayed."""
    held: set[str] = field(default_factory=set[str])
    """Ids of the messages the session holds."""
    unacked: dict[str, Delivery] = field(default_factory=dict[str, Delivery])
    """Put into the session (or queued for it), not acknowledged yet, by message id."""
    current: str | None = None
    """What the newest message the session holds asked (`team status`'s current task): one the
    model was given, not one still queued for it."""

    @property
    def name(self) -> str:
        return self.link.member

    async def know_senders(self, batch: list[Delivery]) -> None:
        """The team's members read again when a message comes from one not known: one who
        joined since is no stranger."""
        if any(d.message.sender not in self.link.protocol.members for d in batch):
            with contextlib.suppress(StoreUnavailable):
                await self.link.refresh_members()

    async def letters(self, batch: list[Delivery], now: float) -> list[str]:
        """The letters of the new messages of `batch` (received by the protocol at `now`);
        redeliveries of held ones acknowledged and dropped."""
        texts: list[str] = []
        dropped: list[str] = []
        for delivery in batch:
            message = delivery.message
            if message.id in self.held:
                dropped.append(delivery.receipt)
                continue
            if message.kind == "shutdown_request" and message.id == self.shutdown_done:
                self.say(f"shutdown request {message.id}: done already (it ended the last run)")
                dropped.append(delivery.receipt)
                continue
            if message.id in self.unacked:
                continue  # already on its way into the session
            self.unacked[message.id] = delivery
            received = self.link.protocol.incoming(message, now)
            texts.append(letter(message, received.note, answered=received.obeyed))
            if message.kind == INVALID_KIND:
                self.say(f"{message.id}: {received.note}")
            elif not received.obeyed:
                self.say(f"{message.kind} {message.id} from {message.sender}: {received.note}")
        if dropped:
            await self.ack(dropped)
        return texts

    async def ack_held(self, *, sent: bool) -> None:
        """Acknowledge the messages the session now holds (its file has them), once the
        model was given them (`sent`: until then the prompt may still be taken back, too
        long); the newest task among them is `team status`'s current task from the moment
        it is held."""
        if not self.unacked:
            return
        newest = self.session.messages[-4:]
        held = held_ids(newest) & set(self.unacked)
        if not held:
            return
        current = self._asked(held)  # shown as soon as the session holds it
        if sent:
            self.held |= held
            await self.ack([self.unacked.pop(i).receipt for i in held])
        await self._show_current(current)

    async def ack_session_held(self) -> None:
        """Acknowledge every message the session now holds (anywhere in it)."""
        self.held |= held_ids(self.session.messages)
        gone = [i for i in self.unacked if i in self.held]
        if gone:
            current = self._asked(set(gone))
            receipts = [self.unacked.pop(i).receipt for i in gone]
            await self.ack(receipts)
            await self._show_current(current)

    async def not_read(self, prompt: list[str], why: str) -> None:
        """Tell the sender of each message of `prompt` the session does not hold (its prompt
        never reached the model) that it was not read, and why; then acknowledge it. A
        request is answered so (its sender stops waiting). A message whose sender cannot be
        told (the store out of reach) stays unacknowledged: the mailbox keeps it."""
        joined = "\n".join(prompt)
        queued = "\n".join(self.session.queued)
        done: list[str] = []
        for message_id, delivery in list(self.unacked.items()):
            tag = f'id="{message_id}"'
            if tag not in joined or tag in queued or message_id in self.held:
                continue
            message = delivery.message
            said = not_read(self.name, message, why)
            self.say(f"{message.id} from {message.sender} not read: {why[:200]}")
            kind, reply_to = (
                ("reply", message.id) if message.kind == "request" else ("message", None)
            )
            if message.sender != self.name and message.kind != INVALID_KIND:
                try:
                    await self.link.send(message.sender, kind, said, reply_to=reply_to)
                except ProtocolError as e:
                    self.say(f"{message.sender} not told: {e}")
                except StoreUnavailable as e:
                    self.say(f"{message.sender} not told (kept unread): {e}")
                    continue
            done.append(message_id)
        if done:
            await self.ack([self.unacked.pop(i).receipt for i in done])

    async def resumed(self) -> None:
        """A turn an earlier run left unfinished runs again: its task, the newest the session
        holds, is the current task again (the claim of this run cleared it)."""
        found = newest_letter(self.session.messages, TASK_KINDS)
        if found is not None:
            kind, text = found
            await self._show_current((text or kind)[:CURRENT_TASK_CHARS])

    async def no_current(self) -> None:
        """Nothing asked is under way any more (the teammate is idle)."""
        self.current = None
        await self.link.publish(current_task=None)

    async def ack(self, receipts: list[str]) -> None:
        """Acknowledge; a store that cannot be reached leaves them held (a redelivery of a
        message the session holds is dropped by its id)."""
        try:
            await asyncio.to_thread(self.inbox.ack, self.name, receipts)
        except StoreUnavailable as e:
            self.say(f"{len(receipts)} message(s) not acknowledged: {e}")

    def _asked(self, held: set[str]) -> str | None:
        """What the newest of these messages (now in the session) asks, for `team status`;
        None when none of them is a task (`TASK_KINDS`: not a shutdown request, a reply, a
        notification or an invalid entry)."""
        asked = [
            d.message for i, d in self.unacked.items() if i in held and d.message.kind in TASK_KINDS
        ]
        return (asked[-1].text or asked[-1].kind)[:CURRENT_TASK_CHARS] if asked else None

    async def _show_current(self, current: str | None) -> None:
        if current is not None and current != self.current:
            self.current = current
            await self.link.publish(current_task=current)
