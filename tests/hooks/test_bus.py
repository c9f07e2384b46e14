"""The in-process bus: subscription by class, kind or everything; failures reported, not raised."""

from __future__ import annotations

from pydantic import BaseModel

from tether.hooks import ALL, EventBus
from tether.protocol import Notice, TextDelta, ToolFinished, ToolStarted

STARTED = ToolStarted(call_id="c1", name="Bash", input={"command": "ls"})
FINISHED = ToolFinished(call_id="c1", name="Bash", content="a\nb", is_error=False, duration_ms=12)
DELTA = TextDelta(text="hi")


async def test_handlers_get_the_events_they_subscribed_to_in_order() -> None:
    bus = EventBus()
    seen: list[tuple[str, BaseModel]] = []
    bus.subscribe(ToolFinished, lambda e: seen.append(("by class", e)))
    bus.subscribe("tool_started", lambda e: seen.append(("by kind", e)))
    bus.subscribe(ALL, lambda e: seen.append(("all", e)))

    async def later(event: ToolFinished) -> None:
        seen.append(("async", event))

    bus.subscribe(ToolFinished, later)
    for event in (STARTED, DELTA, FINISHED):
        assert await bus.publish(event) == ()
    assert seen == [
        ("by kind", STARTED),
        ("all", STARTED),
        ("all", DELTA),
        ("by class", FINISHED),
        ("all", FINISHED),
        ("async", FINISHED),
    ]


async def test_a_failing_handler_is_reported_and_the_others_still_run() -> None:
    bus = EventBus()
    seen: list[BaseModel] = []

    def broken(event: ToolFinished) -> None:
        raise KeyError("duration")

    async def broken_later(event: BaseModel) -> None:
        raise RuntimeError("disk full")

    bus.subscribe(ToolFinished, broken)
    bus.subscribe(ALL, broken_later)
    bus.subscribe(ALL, seen.append)
    errors = await bus.publish(FINISHED)
    assert errors == (
        "event handler test_a_failing_handler_is_reported_and_the_others_still_run.<locals>."
        "broken failed on tool_finished: KeyError: 'duration'",
        "event handler test_a_failing_handler_is_reported_and_the_others_still_run.<locals>."
        "broken_later failed on tool_finished: RuntimeError: disk full",
    )
    assert seen == [FINISHED]


async def test_unsubscribe() -> None:
    bus = EventBus()
    seen: list[BaseModel] = []
    unsubscribe = bus.subscribe(ALL, seen.append)
    await bus.publish(DELTA)
    unsubscribe()
    unsubscribe()
    await bus.publish(DELTA)
    assert seen == [DELTA]


async def test_publish_from_synchronous_code() -> None:
    errors: list[str] = []
    bus = EventBus(on_error=errors.append)
    seen: list[BaseModel] = []

    async def later(event: BaseModel) -> None:
        seen.append(event)

    def broken(event: BaseModel) -> None:
        raise ValueError("bad")

    async def broken_later(event: BaseModel) -> None:
        raise ValueError("worse")

    bus.subscribe(Notice, seen.append)
    bus.subscribe(Notice, later)
    bus.subscribe(Notice, broken)
    bus.subscribe(Notice, broken_later)
    notice = Notice(message="hello")
    bus.publish_nowait(notice)
    assert seen == [notice]
    await bus.drain()
    assert seen == [notice, notice]
    assert [e.split(" failed on ")[1] for e in errors] == [
        "notice: ValueError: bad",
        "notice: ValueError: worse",
    ]
