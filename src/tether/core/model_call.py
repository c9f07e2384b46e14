"""One model call, streamed, with tether's retries: the one retry layer for model calls.

The adapters never retry. Here a retryable failure is tried again after a backoff (or the wait
the endpoint asked for): 401/408/409/429/5xx answers, streams that break, error or stall
halfway (the idle timeout), and endpoints that cannot be reached, as often as Claude Code tries
them (`RetryPolicy`); an error event of another type inside a 200 stream is tried once more,
at once and unannounced, as Claude Code does. Nothing from a failed attempt is kept: tools run
only from a response whose stream finished.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final

from tether.models.base import (
    BlockDone,
    Model,
    ModelRequest,
    ResponseDone,
    ResponseStarted,
    TextChunk,
    ThinkingChunk,
    ToolInputChunk,
    Waiting,
)
from tether.protocol import (
    BlockCompleted,
    ContentBlock,
    Event,
    ModelError,
    ModelRetry,
    ModelWaiting,
    Notice,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
)
from tether.protocol import ResponseStarted as ResponseBegan
from tether.slotted import Slotted, replaced

MAX_ASKED_WAIT_S = 60.0
"""A `retry-after` up to this long is honoured as given; a longer one ends the call with an
error naming the wait (a rate limit lifting in an hour is no reason to hang, nor to hammer)."""


def _duration(seconds: float) -> str:
    """A wait as said: seconds, minutes, hours up to a day; beyond, the date it ends (UTC), or
    "more than a day" when that is no date (`inf`, a year past 9999)."""
    if seconds < 60:
        return f"{seconds:.1f}s".replace(".0s", "s")
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 86400:
        return f"{seconds / 3600:.1f} h".replace(".0 h", " h")
    try:
        until = datetime.now(UTC) + timedelta(seconds=seconds)
    except (OverflowError, ValueError):  # inf, nan, or past the last date
        return "more than a day"
    return f"more than a day (until {until:%Y-%m-%d %H:%M} UTC)"


class RetryPolicy(Slotted):
    """How often and how long a failed call is tried again. The defaults are Claude Code's
    (measured against the same fake API): 10 retries after the first attempt, an unreachable
    endpoint's included, from 0.5 s doubling up to 32 s, with a quarter's jitter."""

    __slots__ = ("base_delay_s", "max_attempts", "max_delay_s", "max_unreachable_attempts")
    max_attempts: Final[int]
    base_delay_s: Final[float]
    max_delay_s: Final[float]
    max_unreachable_attempts: Final[int]
    """Attempts for an endpoint that gave no HTTP answer (refused, DNS, TLS)."""

    def __init__(
        self,
        max_attempts: int = 11,
        base_delay_s: float = 0.5,
        max_delay_s: float = 32.0,
        max_unreachable_attempts: int = 11,
    ) -> None:
        self.max_attempts = max_attempts
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.max_unreachable_attempts = max_unreachable_attempts

    def delay(self, attempt: int, asked_s: float | None = None) -> float:
        """The wait after failed attempt `attempt` (1-based): what the endpoint asked for, else
        exponential backoff with jitter."""
        if asked_s is not None and 0 <= asked_s <= MAX_ASKED_WAIT_S:
            return asked_s
        raw = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return raw * (0.75 + random.random() * 0.5)

    def attempts_for(self, error: ModelError) -> int:
        return (
            min(self.max_attempts, self.max_unreachable_attempts)
            if error.unreachable
            else (self.max_attempts)
        )


async def call_model(
    model: Model, request: ModelRequest, emit: Callable[[Event], None], policy: RetryPolicy
) -> ResponseDone:
    """Stream one response, forwarding text as it arrives; retry retryable failures."""
    attempt = 1
    tried_again = False
    while True:
        told_a_block = False

        def watched(event: Event) -> None:
            nonlocal told_a_block
            told_a_block = told_a_block or isinstance(event, BlockCompleted)
            emit(event)

        try:
            return await _stream_once(model, request, watched)
        except ModelError as e:
            # As Claude Code: once a block of the answer was told, its error is final.
            if e.retry_once and not tried_again and not told_a_block:
                tried_again = True
                continue
            attempts = policy.attempts_for(e)
            if not e.retryable or attempt >= attempts:
                raise
            asked = e.retry_after_s
            if asked is not None and asked > MAX_ASKED_WAIT_S:
                raise ModelError(
                    f"{e}; it asks to wait {_duration(asked)} before trying again, longer than "
                    f"tether waits ({_duration(MAX_ASKED_WAIT_S)}): try again later",
                    status=e.status,
                    error_type=e.error_type,
                    retry_after_s=asked,
                ) from e
            delay = policy.delay(attempt, asked)
            if asked is not None and asked >= 1:  # the endpoint chose the wait: said, not silent
                emit(
                    Notice(
                        level="warning",
                        message=f"{e}; it asks to wait {_duration(asked)}: trying again then "
                        f"(attempt {attempt + 1} of {attempts})",
                    )
                )
            emit(
                ModelRetry(
                    attempt=attempt,
                    max_attempts=attempts,
                    delay_s=delay,
                    reason=str(e),
                    status=e.status,
                    in_stream=e.in_stream,
                )
            )
            await asyncio.sleep(delay)
            attempt += 1


async def _stream_once(
    model: Model, request: ModelRequest, emit: Callable[[Event], None]
) -> ResponseDone:
    done: ResponseDone | None = None
    closed: list[tuple[ContentBlock, str]] = []  # each block's session-file entry, as it closes
    sent = time.perf_counter()
    async for event in model.stream(request):
        if isinstance(event, TextChunk):
            emit(TextDelta(text=event.text))
        elif isinstance(event, ThinkingChunk):
            emit(ThinkingDelta(text=event.text))
        elif isinstance(event, ToolInputChunk):
            emit(
                ToolInputDelta(
                    call_id=event.call_id, name=event.name, partial_json=event.partial_json
                )
            )
        elif isinstance(event, BlockDone):
            closed.append((event.block, str(uuid.uuid4())))
            emit(BlockCompleted(block=event.block, model=event.model, entry_uuid=closed[-1][1]))
        elif isinstance(event, Waiting):
            emit(
                ModelWaiting(
                    waited_s=event.waited_s, limit_s=event.limit_s, pings_only=event.pings_only
                )
            )
        elif isinstance(event, ResponseStarted):
            emit(
                ResponseBegan(
                    model=request.model,
                    message_id=event.message_id,
                    request_id=event.request_id,
                    usage=event.usage,
                    ttft_ms=int((time.perf_counter() - sent) * 1000),
                )
            )
        else:
            done = event
    if done is None:
        raise ModelError("the model stream ended without a final message", retryable=True)
    if done.unread_usage:  # once a session: the adapter names them only the first time
        emit(
            Notice(
                level="warning",
                message=f"the endpoint sent usage counts that are not token counts "
                f"({', '.join(done.unread_usage)}): they are not counted, so this session's "
                "token counts and cost are too low",
            )
        )
    return replaced(done, block_uuids=_entry_uuids(done.message.content, closed))


def _entry_uuids(
    blocks: Sequence[ContentBlock], closed: list[tuple[ContentBlock, str]]
) -> tuple[str, ...]:
    """A uuid for each block of the reply, in its order: the one its line was written with
    when it closed (matched by the block itself: a call whose input is not JSON closes only
    with the reply, so the order of closing is not the reply's), a new one for the others."""
    left = list(closed)
    named: list[str] = []
    for block in blocks:
        found = next((i for i, (seen, _) in enumerate(left) if seen == block), None)
        named.append(left.pop(found)[1] if found is not None else str(uuid.uuid4()))
    return tuple(named)
