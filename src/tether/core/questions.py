"""The questions a session waits on: a running turn's permission questions (answered by
`Session.answer`, by request id) and the yes/no questions for the user before the first turn."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tether.core.gate import Asker
from tether.protocol import Event, PermissionAnswer, PermissionAsked
from tether.slotted import Slotted


class StartupQuestion(Slotted):
    __slots__ = ("answer", "question")
    question: str
    answer: Callable[[bool, bool], None]
    """Called with the user's answer and whether to remember it (not when the user only
    dismissed the question)."""

    def __init__(self, question: str, answer: Callable[[bool, bool], None]) -> None:
        self.question = question
        self.answer = answer


class PendingAnswers:
    """Permission questions asked and not answered yet, by request id."""

    def __init__(self) -> None:
        self._futures: dict[str, asyncio.Future[PermissionAnswer]] = {}

    def asker(self, emit: Callable[[Event | None], None]) -> Asker:
        """Asks by emitting the question, then waits for its answer."""

        async def ask(request: PermissionAsked) -> PermissionAnswer:
            future: asyncio.Future[PermissionAnswer] = asyncio.get_running_loop().create_future()
            self._futures[request.request_id] = future
            emit(request)
            try:
                return await future
            finally:
                self._futures.pop(request.request_id, None)

        return ask

    def answer(self, answer: PermissionAnswer) -> None:
        """Resolve a pending question; unknown or stale ids are ignored."""
        future = self._futures.pop(answer.request_id, None)
        if future is not None and not future.done():
            future.set_result(answer)
