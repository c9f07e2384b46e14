"""`Patience`: a member's store calls carried through an outage of the store (Redis restarted,
a network cut) as its mailbox loop carries its reads (`receiving.py`): said once, tried again
0.5 s doubling to 5 s until the store answers, or, given a patience, until that runs out
(`StorePatienceOut`). A teammate makes every store call of its start-up, from its claim on,
through it: a drop shorter than its `--store-patience` at any moment of its life is survived.

Nothing is lost by trying again: each call is one read or one atomic write, so a call that
failed did nothing, and the writes made here (its own record's fields) are the same again.
What waiting cannot mend (`StoreDamaged`, `StoreLost`) is raised at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

from tether.store.task_records import StoreDamaged, StoreLost, StoreUnavailable
from tether.teams.receiving import RETRY_FIRST_S, RETRY_MAX_S, StorePatienceOut

T = TypeVar("T")


class Patience:
    """`call(step)` (from a thread or before any event loop) and `await acall(step)` (on a
    thread) run `step()` and run it again while the store at `url` cannot be reached, for at
    most `patience_s` (None: for ever)."""

    def __init__(self, url: str, patience_s: float | None, say: Callable[[str], None]) -> None:
        self.url = url
        self.patience_s = patience_s
        self.say = say

    def call(self, step: Callable[[], T]) -> T:
        waits = self._waits()
        while True:
            try:
                return self._answered(step(), waits)
            except (StoreDamaged, StoreLost):
                raise
            except StoreUnavailable as e:
                time.sleep(self._wait(waits, e))

    async def acall(self, step: Callable[[], T]) -> T:
        """The patience counts from the first try, and each try is waited for only as long
        as it has left: a store that takes a try and never answers (paused, a dropped
        network) costs a client's socket timeout per try otherwise, far past the patience.
        A try given up may still land: its writes are under ids the next try skips."""
        waits = self._waits()
        first_try = time.monotonic()
        while True:
            try:
                async with asyncio.timeout(self._left(first_try)):
                    result = await asyncio.to_thread(step)
                return self._answered(result, waits)
            except (StoreDamaged, StoreLost):
                raise
            except TimeoutError:
                raise StorePatienceOut(self._out()) from None
            except StoreUnavailable as e:
                await asyncio.sleep(self._wait(waits, e, first_try))

    def _left(self, first_try: float) -> float | None:
        if self.patience_s is None:
            return None
        return max(0.0, first_try + self.patience_s - time.monotonic())

    def _out(self) -> str:
        return f"mailbox store {self.url} has not answered for {self.patience_s:g} s"

    def _waits(self) -> list[float]:
        return []  # [since, last wait]: empty while the store answers

    def _wait(
        self, waits: list[float], error: StoreUnavailable, first_try: float | None = None
    ) -> float:
        """How long to wait before trying again (said once per outage), or
        `StorePatienceOut` once the store has not answered for `patience_s` since the first
        try (`first_try`; else the first error)."""
        now = time.monotonic()
        if not waits:
            limit = "" if self.patience_s is None else f" (for {self.patience_s:g} s at most)"
            self.say(f"{error}: trying again until it answers{limit}")
            waits[:] = [now if first_try is None else first_try, RETRY_FIRST_S / 2]
        if self.patience_s is not None and now - waits[0] >= self.patience_s:
            raise StorePatienceOut(self._out()) from error
        waits[1] = min(RETRY_MAX_S, waits[1] * 2)
        if self.patience_s is not None:
            waits[1] = max(0.0, min(waits[1], waits[0] + self.patience_s - now))
        return waits[1]

    def _answered(self, result: T, waits: list[float]) -> T:
        if waits:
            self.say(f"mailbox store {self.url} answers again")
        return result
