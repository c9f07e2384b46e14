"""A session owns one conversation. Front ends send ops and read events; nothing else."""

from __future__ import annotations

import asyncio
import time
import traceback
import uuid
from collections.abc import AsyncIterator, Callable

from tether.core.history import History
from tether.core.loop import INTERRUPTED, Agent, TurnStats, run_turn
from tether.protocol import (
    ErrorOccurred,
    Event,
    HarnessError,
    Interrupt,
    Message,
    Op,
    SessionStarted,
    Shutdown,
    TextBlock,
    TurnFinished,
    TurnStarted,
    TurnSubtype,
    Usage,
    UserInput,
)


class Session:
    def __init__(
        self,
        agent: Agent,
        *,
        session_id: str | None = None,
        price: Callable[[Usage], float] = lambda _usage: 0.0,
        history: History | None = None,
    ) -> None:
        self.agent = agent
        self.session_id = session_id or str(uuid.uuid4())
        self._price = price
        self._history = history or History()
        self._task: asyncio.Task[None] | None = None
        self.usage = Usage()
        self.cost_usd = 0.0

    @property
    def messages(self) -> tuple[Message, ...]:
        return self._history.messages

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def started(self) -> SessionStarted:
        return SessionStarted(
            session_id=self.session_id,
            model=self.agent.model_id,
            cwd=str(self.agent.tool_context.workspace),
            tools=self.agent.tools.names(),
        )

    async def submit(self, op: Op) -> AsyncIterator[Event]:
        """Apply one op; a `UserInput` yields the turn's events, ending with `TurnFinished`."""
        if isinstance(op, UserInput):
            async for event in self._run(op.text):
                yield event
        elif isinstance(op, Interrupt):
            self.interrupt()
        elif isinstance(op, Shutdown):  # pyright: ignore[reportUnnecessaryIsInstance]
            await self.aclose()

    async def aclose(self) -> None:
        """Stop any running turn and release the model's connections."""
        self.interrupt()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        close = getattr(self.agent.model, "aclose", None)
        if close is not None:
            await close()

    def interrupt(self) -> None:
        """Cancel the running turn: stream and tools stop; pending calls are answered."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _run(self, text: str) -> AsyncIterator[Event]:
        if self.busy:
            raise HarnessError("a turn is already running in this session")
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self._task = asyncio.create_task(self._work(text, queue.put_nowait))
        try:
            while (event := await queue.get()) is not None:
                yield event
        finally:
            if not self._task.done():
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)

    async def _work(self, text: str, emit: Callable[[Event | None], None]) -> None:
        started = time.perf_counter()
        stats = TurnStats()
        subtype: TurnSubtype = "error_during_execution"
        error: str | None = None
        emit(TurnStarted(prompt=text))
        try:
            if not text.strip():
                raise HarnessError("the prompt is empty")
            self._history.add_user([TextBlock(text=text)])
            subtype = await run_turn(self.agent, self._history, stats, emit)
        except asyncio.CancelledError:
            error = "interrupted by the user"
        except HarnessError as e:
            error = str(e)
            emit(ErrorOccurred(message=error))
        except Exception as e:
            # A bug, not a condition: stop the turn loudly with the traceback, keep the session.
            error = f"internal error: {e!r}"
            emit(ErrorOccurred(message=f"{error}\n{traceback.format_exc()}"))
        finally:
            self._history.answer_unanswered(INTERRUPTED)
            self.usage = self.usage + stats.usage
            cost = self._price(stats.usage)
            self.cost_usd += cost
            emit(
                TurnFinished(
                    subtype=subtype if error is None else "error_during_execution",
                    is_error=error is not None or subtype != "success",
                    result=stats.result if error is None else error,
                    stop_reason=stats.stop_reason,
                    num_turns=stats.num_turns,
                    usage=stats.usage,
                    cost_usd=cost,
                    duration_ms=int((time.perf_counter() - started) * 1000),
                    duration_api_ms=stats.api_ms,
                    error=error,
                )
            )
            emit(None)
