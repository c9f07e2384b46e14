"""The real APIs' rules for effort, as the fake server enforces them: the Messages API's
`output_config.effort` (which levels, on which models, and not above `high` without thinking)
and Chat Completions' `reasoning_effort` (reasoning models only). Kept apart from tether's
catalogue on purpose: a catalogue that claims a level a model does not take fails here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

_LEVELS = ("low", "medium", "high", "xhigh", "max")
_DATED = re.compile(r"-\d{8}$")

# Model (without a date suffix) to the levels the Messages API takes for it; first match wins.
_ANTHROPIC: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"^claude-opus-4-5$"), ("low", "medium", "high")),
    (re.compile(r"^claude-(opus|sonnet)-4-6$"), ("low", "medium", "high", "max")),
    (re.compile(r"^claude-opus-4-[78]$"), _LEVELS),
    # Haiku 5.5 takes every level (Claude Code sends it each, `xhigh` and `max` too).
    (re.compile(r"^claude-(opus|sonnet|haiku|fable)-5(-\d+)?$"), _LEVELS),
)
_NEEDS_THINKING = ("xhigh", "max")

_REASONING_MODEL = re.compile(r"^(gpt-5|o1|o3|o4)")
_REASONING_LEVELS = ("minimal", "low", "medium", "high")


def anthropic_effort_problem(body: Mapping[str, Any]) -> str | None:
    config = body.get("output_config")
    if config is None:
        return None
    if not isinstance(config, dict):
        return "output_config: Input should be a valid dictionary"
    effort = cast(dict[str, Any], config).get("effort")
    if effort is None:
        return None
    if effort not in _LEVELS:
        return "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
    model = _DATED.sub("", str(body.get("model")))
    taken = next((levels for pattern, levels in _ANTHROPIC if pattern.match(model)), ())
    if not taken:
        return f"output_config.effort: the effort parameter is not supported on {model}"
    if effort not in taken:
        return f"output_config.effort: '{effort}' is not supported on {model}"
    thinking = body.get("thinking")
    thinks = isinstance(thinking, dict) and cast(dict[str, Any], thinking).get("type") in (
        "adaptive",
        "enabled",
    )
    if effort in _NEEDS_THINKING and not thinks:
        return f"output_config.effort: '{effort}' requires thinking; use 'high' or below"
    return None


def openai_effort_problem(body: Mapping[str, Any]) -> tuple[str, str] | None:
    """(message, code) of Chat Completions' refusal of `reasoning_effort`, or None."""
    if "reasoning_effort" not in body:
        return None
    if not _REASONING_MODEL.match(str(body.get("model"))):
        return (
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            "unsupported_parameter",
        )
    effort = body["reasoning_effort"]
    if effort not in _REASONING_LEVELS:
        return (
            f"Invalid value: '{effort}'. Supported values are: 'minimal', 'low', 'medium', and "
            "'high'.",
            "invalid_value",
        )
    return None
