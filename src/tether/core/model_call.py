"""One model call, streamed, with tether's own retries for broken streams and overloads.

The SDKs retry failed connections and 429/5xx answers before a stream starts; what they cannot
retry is a stream that breaks or errors halfway, so that is retried here, as are overloads that
outlast the SDK's few quick retries. An endpoint that cannot be reached at all is reported at
once (the SDK has already retried it). Nothing from a broken attempt is kept: tools run only from
a response whose stream finished.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass

from tether.models.base import Model, ModelRequest, ResponseDone, TextChunk, ThinkingChunk
from tether.protocol import Event, ModelError, ModelRetry, TextDelta, ThinkingDelta


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0

    def delay(self, attempt: int) -> float:
        """Exponential backoff with jitter: the wait after failed attempt `attempt` (1-based)."""
        raw = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        return raw * (0.75 + random.random() * 0.5)


async def call_model(
    model: Model, request: ModelRequest, emit: Callable[[Event], None], policy: RetryPolicy
) -> ResponseDone:
    """Stream one response, forwarding text as it arrives; retry retryable failures."""
    attempt = 1
    while True:
        try:
            return await _stream_once(model, request, emit)
        except ModelError as e:
            if not e.retryable or e.unreachable or attempt >= policy.max_attempts:
                raise
            delay = policy.delay(attempt)
            emit(
                ModelRetry(
                    attempt=attempt, max_attempts=policy.max_attempts, delay_s=delay, reason=str(e)
                )
            )
            await asyncio.sleep(delay)
            attempt += 1


async def _stream_once(
    model: Model, request: ModelRequest, emit: Callable[[Event], None]
) -> ResponseDone:
    done: ResponseDone | None = None
    async for event in model.stream(request):
        if isinstance(event, TextChunk):
            emit(TextDelta(text=event.text))
        elif isinstance(event, ThinkingChunk):
            emit(ThinkingDelta(text=event.text))
        else:
            done = event
    if done is None:
        raise ModelError("the model stream ended without a final message", retryable=True)
    return done
