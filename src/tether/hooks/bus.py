"""The in-process event bus: handlers subscribe to the session's events by type or by kind.

Handlers may be plain functions or coroutines. A handler that raises is reported as an error string
and the others still run: an observer must never be able to end the session it observes.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar, overload

from tether.protocol import Event, Record
from tether.slotted import Slotted

E = TypeVar("E", bound=Record)

Handler = Callable[[Any], object]
"""Called with the event; may return an awaitable, which the bus awaits."""

ALL = "*"
"""Subscribe with this kind to receive every event."""


class _Subscription(Slotted):
    __slots__ = ("handler", "selector")
    selector: Final[type[Record] | str]
    handler: Final[Handler]

    def __init__(self, selector: type[Record] | str, handler: Handler) -> None:
        self.selector = selector
        self.handler = handler

    def wants(self, event: Record) -> bool:
        if isinstance(self.selector, str):
            return self.selector in (ALL, getattr(event, "kind", None))
        return isinstance(event, self.selector)


class EventBus:
    """Publish-subscribe over `tether.protocol` events, delivered in subscription order."""

    def __init__(self, on_error: Callable[[str], None] | None = None) -> None:
        """`on_error` hears about handlers that fail when published with `publish_nowait`."""
        self._subscriptions: list[_Subscription] = []
        self._on_error = on_error
        self._pending: set[asyncio.Task[str | None]] = set()

    @overload
    def subscribe(self, kind: type[E], handler: Callable[[E], object]) -> Callable[[], None]: ...
    @overload
    def subscribe(self, kind: str, handler: Callable[[Event], object]) -> Callable[[], None]: ...
    def subscribe(
        self, kind: type[Any] | str, handler: Callable[[Any], object]
    ) -> Callable[[], None]:
        """Call `handler` for each published event of this class (`ToolFinished`), of this `kind`
        string (`"tool_finished"`), or every event (`"*"`). Returns the unsubscribe function."""
        subscription = _Subscription(kind, handler)
        self._subscriptions.append(subscription)

        def unsubscribe() -> None:
            if subscription in self._subscriptions:
                self._subscriptions.remove(subscription)

        return unsubscribe

    async def publish(self, event: Event) -> tuple[str, ...]:
        """Deliver `event` to its subscribers, awaiting each; returns the failures as text."""
        errors: list[str] = []
        for subscription in self._deliveries(event):
            error = await _deliver(subscription.handler, event)
            if error is not None:
                errors.append(error)
        return tuple(errors)

    def publish_nowait(self, event: Event) -> None:
        """Deliver `event` from synchronous code: plain handlers run now, coroutine handlers are
        scheduled on the running loop (`drain` waits for them). Failures go to `on_error`."""
        for subscription in self._deliveries(event):
            try:
                result = subscription.handler(event)
            except Exception as e:  # isolation is the point: see the module docstring
                self._report(_failure(subscription.handler, event, e))
                continue
            if inspect.isawaitable(result):
                task = asyncio.ensure_future(_settle(subscription.handler, event, result))
                self._pending.add(task)
                task.add_done_callback(self._finished)

    async def drain(self) -> None:
        """Wait for the coroutine handlers `publish_nowait` started."""
        while self._pending:
            await asyncio.gather(*self._pending)

    def _deliveries(self, event: Record) -> list[_Subscription]:
        # A copy: a handler may subscribe or unsubscribe while the event is delivered.
        return [s for s in self._subscriptions if s.wants(event)]

    def _finished(self, task: asyncio.Task[str | None]) -> None:
        self._pending.discard(task)
        if not task.cancelled() and task.result() is not None:
            self._report(task.result() or "")

    def _report(self, error: str) -> None:
        if self._on_error is not None:
            self._on_error(error)


async def _deliver(handler: Handler, event: Record) -> str | None:
    try:
        result = handler(event)
        if inspect.isawaitable(result):
            await result
    except Exception as e:  # isolation is the point: see the module docstring
        return _failure(handler, event, e)
    return None


async def _settle(handler: Handler, event: Record, result: Awaitable[object]) -> str | None:
    try:
        await result
    except Exception as e:  # isolation is the point: see the module docstring
        return _failure(handler, event, e)
    return None


def _failure(handler: Handler, event: Record, error: Exception) -> str:
    name = getattr(handler, "__qualname__", None) or type(handler).__name__
    kind = getattr(event, "kind", type(event).__name__)
    return f"event handler {name} failed on {kind}: {type(error).__name__}: {error}"
