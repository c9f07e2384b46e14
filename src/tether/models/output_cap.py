"""The output cap a request carries: the user's (`CLAUDE_CODE_MAX_OUTPUT_TOKENS`,
`maxOutputTokens`) held to the most the model takes, as Claude Code holds it (a cap of 200000
on Sonnet 4.5 is sent as 64000), else the catalogue's default. The most each model takes is
the catalogue's (`ModelInfo.output_ceiling`)."""

from __future__ import annotations

from tether.models.catalogue import ModelInfo


def output_ceiling(info: ModelInfo) -> int:
    """The most output a request to the model may ask for, never more than its window: the
    catalogue's ceiling (a Claude model's as Claude Code has it, another listed model's its
    API's); a model of unknown ceiling (a local server's), its window."""
    if info.output_ceiling is None:
        return info.context_window
    return min(info.output_ceiling, info.context_window)


def output_limit(cap: int | None, info: ModelInfo) -> int:
    """The output cap a request to the model carries: the user's `cap` held to the model's
    most, else the catalogue's default (Claude Code's)."""
    if cap is None:
        return info.max_output_tokens
    return min(cap, output_ceiling(info))
