"""A worker's calls to its task store: one at a time on a thread, and carried through an
outage of the store (Redis restarted, a network cut) with backoff instead of ending the run.

Nothing is lost by retrying: every store step is one transaction, so a step that failed did
nothing, and a step whose answer was lost (it ran, the reply did not arrive) is found out by
the fence when it is tried again (`LeaseLost`, which the caller handles).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from tether.store.task_records import StoreUnavailable
from tether.store.task_store import TaskStore

T = TypeVar("T")

FIRST_DELAY_S = 0.2
MAX_DELAY_S = 5.0


@dataclass
class StoreCalls:
    """`call(step)` runs `step(store)` on a thread, after the calls asked before it, and runs
    it again while the store is unavailable (0.2 s, doubling to 5 s, with jitter). `say` is
    told once when an outage starts and once when the store answers again."""

    store: TaskStore
    say: Callable[[str], None] = lambda _: None
    first_delay_s: float = FIRST_DELAY_S
    max_delay_s: float = MAX_DELAY_S
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)
    _down_since: str | None = None

    async def call(self, step: Callable[[TaskStore], T]) -> T:
        delay = self.first_delay_s
        while True:
            try:
                async with self.turn:
                    result = await asyncio.to_thread(step, self.store)
            except StoreUnavailable as e:
                if self._down_since is None:
                    self._down_since = str(e)
                    said = str(e).rstrip(". ")  # "... Connection refused." ends a sentence
                    self.say(f"{said}; retrying with backoff (up to {self.max_delay_s:g} s apart)")
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self.max_delay_s)
                continue
            if self._down_since is not None:
                self._down_since = None
                self.say(f"the task store at {self.store.url} answers again")
            return result
