"""A worker's calls to its task store: one at a time on a thread, and carried through an
outage of the store (Redis restarted, a network cut) with backoff instead of ending the run.

Nothing is lost by retrying: every store step is one transaction, so a step that failed did
nothing, and a step whose answer was lost (it ran, the reply did not arrive) is found out by
the fence when it is tried again (`LeaseLost`, which the caller handles).

What waiting cannot mend is not retried: a damaged store (`StoreDamaged`) or a lost one
(`StoreLost`) goes straight to the caller. Nor does a stopped worker wait for a store that is
down: after `stop()`, a call that meets an outage raises its `StoreUnavailable` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from tether.store.task_records import StoreDamaged, StoreLost, StoreUnavailable
from tether.store.task_store import TaskStore

T = TypeVar("T")

FIRST_DELAY_S = 0.2
MAX_DELAY_S = 5.0


@dataclass
class StoreCalls:
    """`call(step)` runs `step(store)` on a thread, after the calls asked before it, and runs
    it again while the store is unavailable (0.2 s, doubling to 5 s, with jitter). `say` is
    told once when an outage starts and once when the store answers again. A damaged or
    lost store, or an outage met after `stop()`, raises to the caller."""

    store: TaskStore
    say: Callable[[str], None] = lambda _: None
    first_delay_s: float = FIRST_DELAY_S
    max_delay_s: float = MAX_DELAY_S
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)
    _down_since: str | None = None
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)

    def stop(self) -> None:
        """Wait no more for a store that is down: the calls waiting, and those to come that
        meet an outage, raise it (a call the store answers still works)."""
        self._stopped.set()

    async def call(self, step: Callable[[TaskStore], T]) -> T:
        delay = self.first_delay_s
        while True:
            try:
                async with self.turn:
                    result = await asyncio.to_thread(step, self.store)
            except (StoreDamaged, StoreLost):
                raise
            except StoreUnavailable as e:
                if self._stopped.is_set():
                    raise
                if self._down_since is None:
                    self._down_since = str(e)
                    said = str(e).rstrip(". ")  # "... Connection refused." ends a sentence
                    self.say(f"{said}; retrying with backoff (up to {self.max_delay_s:g} s apart)")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay * random.uniform(0.5, 1.0)):
                        await self._stopped.wait()
                if self._stopped.is_set():
                    raise
                delay = min(delay * 2, self.max_delay_s)
                continue
            if self._down_since is not None:
                self._down_since = None
                self.say(f"the task store at {self.store.url} answers again")
            return result
