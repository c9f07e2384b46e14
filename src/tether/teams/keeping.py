"""`Keeper`: what a member writes to its team's store and must not lose when the store is
briefly out of reach: its roster fields (its state, written as each change happens, the newest
value of each field) and its notices (an idle notification). A write the store refuses for
being unreachable is kept and tried again in the background, 0.5 s doubling to 5 s, until it
is stored; a notice keeps its id (a redelivery is dropped by id), so it arrives once.

Each roster write takes what is newest when it is made, under one lock: an older state never
lands after a newer one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from tether.store.mailbox import Message, TeamStore
from tether.store.task_records import StoreUnavailable

RETRY_FIRST_S = 0.5
RETRY_MAX_S = 5.0


@dataclass
class Keeper:
    store: TeamStore
    member: str
    fields: Callable[[], dict[str, Any]]
    """The member's protocol fields as they are now (its state, its requests)."""
    write_member: Callable[[dict[str, Any]], Awaitable[None]]
    """Writes fields to the member's roster record (raising `StoreUnavailable`)."""
    warn: Callable[[str], None]
    unwritten: dict[str, Any] = field(default_factory=dict[str, Any])
    """Fields given and not yet stored."""
    outbox: list[Message] = field(default_factory=list[Message])
    """Notices not yet stored, oldest first."""
    _dirty: bool = False
    _down: str | None = None
    """Why the last write failed (said once per outage), or None."""
    _writing: asyncio.Lock = field(default_factory=asyncio.Lock)
    _retrying: asyncio.Task[None] | None = None

    async def publish(self, more: dict[str, Any]) -> bool:
        """Store the member's fields now, with `more`; False when the store cannot be reached
        (they are kept, and written once it answers)."""
        self.unwritten.update(more)
        self._dirty = True
        if await self._write():
            return True
        self._retry()
        return False

    @property
    def writing(self) -> asyncio.Lock:
        """Held by a write of the member's fields made elsewhere (with a message, in one
        transaction) until the protocol has them: none of the keeper's lands in between."""
        return self._writing

    def changed(self) -> None:
        """The member's state changed: written soon (a running loop), in order."""
        self._dirty = True
        with contextlib.suppress(RuntimeError):  # no loop: written with the next publish
            self._retry(asyncio.get_running_loop())

    async def notify(self, message: Message) -> bool:
        """Store a notice; False when the store cannot be reached (kept, and sent again
        under the same id until it is stored)."""
        self.outbox.append(message)
        if await self._write():
            return True
        self._retry()
        return False

    async def _write(self) -> bool:
        async with self._writing:
            try:
                while self.outbox:
                    await asyncio.to_thread(self.store.send, self.outbox[0])
                    self.outbox.pop(0)
                if self._dirty:
                    self._dirty = False
                    taken = {**self.fields(), **self.unwritten}
                    try:
                        await self.write_member(taken)
                    except BaseException:
                        self._dirty = True
                        raise
                    for key, value in taken.items():
                        if key in self.unwritten and self.unwritten[key] is value:
                            del self.unwritten[key]
            except StoreUnavailable as e:
                if self._down is None:
                    kept = self._kept()
                    self.warn(f"{kept} not stored yet ({e}): kept, and written once it answers")
                self._down = str(e)
                return False
        if self._down is not None:
            self._down = None
            self.warn(f"{self.member}'s state and notices stored again")
        return True

    def _kept(self) -> str:
        said = ["its state in the roster"] if self._dirty else []
        said += [f"{m.kind} {m.id} to {m.recipient}" for m in self.outbox]
        return f"{self.member}: " + ", ".join(said or ["nothing"])

    def _retry(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        if self._retrying is not None and not self._retrying.done():
            return
        loop = loop or asyncio.get_running_loop()
        self._retrying = loop.create_task(self._until_stored())

    async def _until_stored(self) -> None:
        wait = 0.0
        while self._dirty or self.outbox:
            if wait:
                await asyncio.sleep(wait)
            stored = await self._write()
            wait = 0.0 if stored else min(RETRY_MAX_S, max(RETRY_FIRST_S, wait * 2))

    async def close(self) -> None:
        """Stop trying (the member's process ends): what is still unstored is said."""
        if self._retrying is not None:
            self._retrying.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retrying
        if self.outbox or (self._dirty and self._down is not None):
            self.warn(f"{self._kept()}: not stored, the store has not answered")
