"""Shared by the adapter tests: run a stream to its end or its error; small request builders."""

from __future__ import annotations

from typing import Any, Protocol, cast

from tether.core.model_call import RetryPolicy, call_model
from tether.models.base import Model, ModelEvent, ModelRequest, ResponseDone
from tether.protocol import Event, Message, ModelError, ModelRetry, ToolSpec

TOOLS = (
    ToolSpec(
        name="Bash",
        description="Run a shell command.",
        input_schema={"type": "object", "properties": {"command": {"type": "string"}}},
    ),
    ToolSpec(
        name="Read",
        description="Read a file.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
    ),
)


class ClosableModel(Protocol):
    def stream(self, request: ModelRequest) -> Any: ...

    async def aclose(self) -> None: ...


def ask(text: str = "hi", **fields: Any) -> ModelRequest:
    """A one-message request."""
    return ModelRequest(
        model="unused", system="You help.", messages=(Message.user_text(text),), **fields
    )


async def run(
    model: ClosableModel, request: ModelRequest
) -> tuple[list[ModelEvent], ModelError | None]:
    """Every event the stream yielded, and the ModelError that ended it, if any."""
    events: list[ModelEvent] = []
    try:
        async for event in model.stream(request):
            events.append(event)
    except ModelError as err:
        return events, err
    finally:
        await model.aclose()
    return events, None


async def finish(model: ClosableModel, request: ModelRequest) -> ResponseDone:
    """The ResponseDone of a stream that must succeed."""
    events, error = await run(model, request)
    assert error is None, str(error)
    done = events[-1]
    assert isinstance(done, ResponseDone)
    return done


async def call_with_retries(
    model: ClosableModel, request: ModelRequest, attempts: int = 4
) -> tuple[ResponseDone, list[ModelRetry]]:
    """The response through the loop's retry layer (waits as tiny as the server asks), and
    the retries it announced."""
    events: list[Event] = []
    policy = RetryPolicy(max_attempts=attempts, base_delay_s=0.001)
    try:
        done = await call_model(cast(Model, model), request, events.append, policy)
    finally:
        await model.aclose()
    return done, [e for e in events if isinstance(e, ModelRetry)]


def count_cache_controls(value: object) -> int:
    """How many `cache_control` keys a request body holds, at any depth."""
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(count_cache_controls(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_cache_controls(v) for v in value)
    return 0
