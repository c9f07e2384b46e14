"""The most output a model's API takes, and the output cap a request carries: the user's
(`CLAUDE_CODE_MAX_OUTPUT_TOKENS`, `maxOutputTokens`) held to that most, as Claude Code holds
it (a cap of 200000 on Sonnet 4.5 is sent as 64000), else the catalogue's default."""

from __future__ import annotations

from tether.models.catalogue import MODELS, ModelInfo, canonical_id

_CLAUDE_CEILINGS: tuple[tuple[str, int], ...] = (
    ("claude-3-5-", 8_192),
    ("claude-3-sonnet", 8_192),
    ("claude-3-opus", 4_096),
    ("claude-3-haiku", 4_096),
    ("claude-3-7-", 64_000),
    ("claude-opus-4-0", 32_000),
    ("claude-opus-4-1", 32_000),
    ("claude-opus-4-2025", 32_000),
    ("claude-sonnet-4-0", 64_000),
    ("claude-sonnet-4-2025", 64_000),
    ("claude-opus-4-5", 64_000),
    ("claude-sonnet-4-5", 64_000),
    ("claude-haiku-4-5", 64_000),
)
"""Claude Code's upper limit of each older Claude model's output, by id prefix, first match
(measured: its bundled CLI's model table); a newer or unknown Claude model's is
`_CLAUDE_CEILING`."""

_CLAUDE_CEILING = 128_000


def output_ceiling(info: ModelInfo) -> int:
    """The most output a request to the model may ask for, never more than its window: a
    Claude model's as Claude Code has it; another listed model's, its API's (the catalogue's
    cap); an unlisted one's (a local server), its window."""
    if info.provider == "anthropic":
        model_id = canonical_id(info.id.lower())
        found = (c for prefix, c in _CLAUDE_CEILINGS if model_id.startswith(prefix))
        ceiling = next(found, _CLAUDE_CEILING)
    elif canonical_id(info.id) in MODELS:
        ceiling = info.max_output_tokens
    else:
        ceiling = info.context_window
    return min(ceiling, info.context_window)


def output_limit(cap: int | None, info: ModelInfo) -> int:
    """The output cap a request to the model carries: the user's `cap` held to the model's
    most, else the catalogue's default (Claude Code's)."""
    if cap is None:
        return info.max_output_tokens
    return min(cap, output_ceiling(info))
