"""Effort (`--effort`, the SDK's `effort`): how much a model spends on a reply, as the endpoint
takes it. The Messages API reads `output_config.effort` on the models that take it (each its
own levels); an OpenAI reasoning model reads `reasoning_effort`. A level the model does not
take goes down to the nearest it does (as Claude Code downgrades it silently); a model that
takes none is sent none."""

from __future__ import annotations

from typing import Literal

EffortLevel = Literal["low", "medium", "high", "xhigh", "max"]

EFFORT_LEVELS: tuple[EffortLevel, ...] = ("low", "medium", "high", "xhigh", "max")
"""Claude Code's levels, least first."""

API_DEFAULT_EFFORT: EffortLevel = "high"
"""What the Messages API works at on a model that takes a level when a request names none."""

_ORDER = ("minimal", *EFFORT_LEVELS)
"""Every level an endpoint names, least first (OpenAI's `minimal` below Claude Code's)."""

DEFAULT_THINKING_TOKENS = 31_999
"""The thinking budget Claude Code sends a model that thinks with a budget (not adaptively):
by default, and at every effort level (the level goes in `output_config.effort` where the
model takes one, never into the budget)."""

_WITHOUT_THINKING = "high"
"""The Messages API refuses a level above this when the request does not think."""


def nearest_effort(asked: str | None, taken: tuple[str, ...]) -> str | None:
    """The level sent for `asked` to a model that takes the levels `taken`: `asked` when
    taken, else the highest taken below it; None when nothing was asked or nothing fits."""
    if asked is None or not taken or asked not in _ORDER:
        return None
    if asked in taken:
        return asked
    below = [level for level in taken if _ORDER.index(level) < _ORDER.index(asked)]
    return max(below, key=_ORDER.index) if below else None


def anthropic_effort(
    asked: str | None,
    taken: tuple[str, ...],
    style: Literal["budget", "adaptive", "none"],
    budget: int | None,
    default: str | None = None,
) -> tuple[bool, str | None]:
    """For a Messages API request: whether it asks for thinking, and its
    `output_config.effort`. The session's requests carry its thinking budget (Claude Code's
    default, `DEFAULT_THINKING_TOKENS`, unless thinking was turned off: 0) and name a level
    on a model that takes one (when none was asked, `default`: the model's own in Claude
    Code, else the API's default, `high`), as Claude Code's do; a request that carries no
    budget (None) thinks only when a level is asked of a model that thinks adaptively. A
    request that does not think is held at `high`, as far as the API allows it then."""
    if style == "none":
        return False, None
    level = nearest_effort(asked, taken)
    thinks = budget != 0 if level is not None and style == "adaptive" else bool(budget)
    if level is None and budget is not None:
        level = nearest_effort(default or API_DEFAULT_EFFORT, taken)
    if level is not None and not thinks and _ORDER.index(level) > _ORDER.index(_WITHOUT_THINKING):
        level = _WITHOUT_THINKING
    return thinks, level


def effort_sent(
    asked: str | None,
    taken: tuple[str, ...],
    wire: str,
    style: Literal["budget", "adaptive", "none"],
    budget: int | None,
) -> str | None:
    """The level a model's requests carry for `asked` (what hooks are told as `effort`)."""
    if wire == "anthropic":
        return anthropic_effort(asked, taken, style, budget)[1]
    return nearest_effort(asked, taken)
