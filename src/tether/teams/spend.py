"""A session's spend on the board: each model call's cost added to the task its agent works
on then, as the call ends, whoever makes it (a worker's session, a teammate with a claim, a
subagent of either) and however the session ends afterwards (a SIGKILL loses at most the
write under way). The task's cost on the board is then what the ledger files under it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from tether.core.session import Session
from tether.protocol import Event, MessageCompleted, SubagentMessage, Usage
from tether.store.task_graph import TaskChanges
from tether.store.task_records import StoreUnavailable, TaskStoreError
from tether.teams.board import TaskBoard


class TaskSpend:
    """Adds what the session spends to `board`'s current task (`TaskBoard.working_on`), one
    store write after each model call (several, when the store was slow, in one)."""

    def __init__(self, board: TaskBoard, price: Callable[[Usage], float]) -> None:
        self._board = board
        self._price = price
        self._owed: dict[str, float] = {}
        """Spend not written yet, by task id."""
        self._writing: asyncio.Task[None] | None = None

    def observe(self, event: Event) -> None:
        match event:
            case MessageCompleted(cost_usd=cost) if event.message.role == "assistant":
                self.spent(cost)
            case SubagentMessage(completed=completed) if completed.message.role == "assistant":
                self.spent(completed.cost_usd)
            case _:
                pass

    def aside(self, usage: Usage) -> None:
        """A model call outside the conversation (a compaction's summary, a hook's judge)."""
        self.spent(self._price(usage))

    def spent(self, cost_usd: float) -> None:
        task_id = self._board.working_on()
        if task_id is None or cost_usd <= 0:
            return
        self._owed[task_id] = self._owed.get(task_id, 0.0) + cost_usd
        if self._writing is None or self._writing.done():
            self._writing = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        while self._owed:
            task_id, cost = next(iter(self._owed.items()))
            changes = TaskChanges(add_cost_usd=cost)
            try:
                await self._board.call(lambda s, t=task_id, c=changes: s.update(t, c))
            except TaskStoreError:  # the task is gone from the board: nothing to add it to
                pass
            except StoreUnavailable:  # kept for the next call's write, or the close's
                return
            owed = self._owed.pop(task_id, 0.0) - cost
            if owed > 1e-12:  # spent meanwhile: written next
                self._owed[task_id] = owed

    async def close(self) -> None:
        """The session ends: what is owed is written (before the board's store closes)."""
        if self._writing is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._writing
        with contextlib.suppress(StoreUnavailable):
            await self._write()


def attach_task_spend(session: Session, board: TaskBoard) -> TaskSpend:
    """File `session`'s spend on `board`'s tasks; call before the board's own close is added
    to the session's `on_close` (its spend is written first)."""
    spend = TaskSpend(board, session.agent.price)
    session.observers.append(spend.observe)
    session.agent.aside_watchers.append(spend.aside)
    session.on_close.append(spend.close)
    return spend
