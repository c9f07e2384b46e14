"""Claude Code's `modelUsage`: per model, what the session used and cost so far, and the
context window and output cap of that model's requests (not the model in use now's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.models.catalogue import MODELS, canonical_id
from tether.protocol import Usage

Limits = tuple[int, int]
"""A model's context window and the output cap its requests were sent with."""

_FIGURES = ("in", "out", "cache_read", "cache_write", "cost", "searches", "thinking", "5m", "1h")
_COST = _FIGURES.index("cost")


def _figures(usage: Usage) -> tuple[int, ...]:
    return (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_input_tokens,
        usage.cache_creation_input_tokens,
        0,  # the cost, priced by the caller
        usage.web_search_requests,
        usage.thinking_tokens,
        usage.ephemeral_5m_input_tokens or 0,
        usage.ephemeral_1h_input_tokens or 0,
    )


class ModelSpend:
    """What the session spent on each model, and the limits each one's requests had."""

    def __init__(self) -> None:
        self._spent: dict[str, list[float]] = {}
        self._limits: dict[str, Limits] = {}

    def add(self, model: str, usage: Usage, cost_usd: float, limits: Limits | None) -> None:
        """Count a call `model` answered; `limits`: those it was made with, when known."""
        spent = self._spent.setdefault(model, [0.0] * len(_FIGURES))
        for index, value in enumerate(_figures(usage)):
            spent[index] += value
        spent[_COST] += cost_usd
        if limits is not None:
            self._limits[model] = limits

    def report(
        self, current: Limits, provider: str, names: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """Claude Code's `modelUsage`, its entries' keys in its order, each model by the name
        `names` gives it (Claude Code's keeps the user's `[1m]`). A model whose calls were
        made with limits not known here has the catalogue's, else `current`'s; one the
        catalogue does not know is the session's `provider`'s."""
        names = names or {}
        return {
            names.get(model, model): self._entry(model, spent, current, provider)
            for model, spent in self._spent.items()
        }

    def _entry(
        self, model: str, spent: list[float], current: Limits, provider: str
    ) -> dict[str, Any]:
        canonical = canonical_id(model)
        known = MODELS.get(canonical)
        window, output = self._limits.get(model) or (
            (known.context_window, known.max_output_tokens) if known is not None else current
        )
        provider = known.provider if known is not None else provider
        return {
            "inputTokens": int(spent[0]),
            "outputTokens": int(spent[1]),
            "cacheReadInputTokens": int(spent[2]),
            "cacheCreationInputTokens": int(spent[3]),
            "webSearchRequests": int(spent[5]),
            "costUSD": round(spent[_COST], 6),
            "contextWindow": window,
            "maxOutputTokens": output,
            "thinkingTokens": int(spent[6]),
            "cacheCreationEphemeral5mInputTokens": int(spent[7]),
            "cacheCreationEphemeral1hInputTokens": int(spent[8]),
            "canonicalModel": canonical,
            # Claude Code's name for Anthropic's own API; another endpoint by tether's name.
            "provider": "firstParty" if provider == "anthropic" else provider,
            "costBasis": "list",  # the catalogue's list prices
        }
