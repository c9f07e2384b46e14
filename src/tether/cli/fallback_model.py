"""`--fallback-model`: when the session's model is overloaded (or unknown to the endpoint)
before it has said anything, the session switches to the fallback model for good and the call
is made again there."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from tether.models.base import Model, ModelEvent, ModelRequest
from tether.protocol import ModelError

FALLBACK_STATUSES = frozenset({404, 529})
"""Not found (the model is not served there) and overloaded, as Claude Code falls back."""


class FallbackModel:
    """The session's model, with a way out: `switch` points the session at the fallback model
    and returns it with its id."""

    def __init__(self, primary: Model, switch: Callable[[], tuple[Model, str]]) -> None:
        self.primary = primary
        self._switch = switch

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        started = False
        try:
            async for event in self.primary.stream(request):
                started = True
                yield event
            return
        except ModelError as e:
            if started or e.status not in FALLBACK_STATUSES:
                raise
        model, model_id = self._switch()
        async for event in model.stream(replace(request, model=model_id)):
            yield event

    async def aclose(self) -> None:
        close = getattr(self.primary, "aclose", None)
        if close is not None:
            await close()
