"""How Claude Code reads a model name before it resolves it (measured: its bundled CLI's
requests and reports against the fake server): a `[1m]` suffix in any case, repeated too;
retired Opus ids sent to the newest Opus; an id asked for with `[1m]` sent in lower case."""

from __future__ import annotations

from collections.abc import Mapping

from tether.models.catalogue import FAMILIES

LONG_CONTEXT_SUFFIX = "[1m]"
"""Claude Code's opt-in to the 1M-token window: `sonnet[1m]`, `claude-sonnet-4-6[1m]`."""

LEGACY_OPUS = frozenset(
    ("claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-20250514", "claude-opus-4-1-20250805")
)
"""Retired Opus ids Claude Code sends to the newest Opus instead, on Anthropic's API (in any
case, with or without `[1m]`; measured: its bundled CLI's requests and reports name only the
newest Opus). `LEGACY_REMAP_OFF_ENV` keeps them as they are."""
LEGACY_REMAP_OFF_ENV = "CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP"


def split_long_context(spec: str) -> tuple[str, bool]:
    """`spec` without its `[1m]` suffix (any case, repeated too, as Claude Code reads it),
    and whether it had one."""
    base = spec
    while base.lower().endswith(LONG_CONTEXT_SUFFIX):
        base = base[: -len(LONG_CONTEXT_SUFFIX)].rstrip()
    return base, base != spec


def sent_id(model_id: str, suffixed: bool, env: Mapping[str, str]) -> str:
    """The id Claude Code sends for `model_id` on Anthropic's API: a retired Opus id as the
    newest Opus (unless `CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP` is set), an id asked for
    with `[1m]` in lower case (measured: `CLAUDE-SONNET-4-6[1M]` is sent as
    `claude-sonnet-4-6`); any other id as the user spelled it."""
    lower = model_id.lower()
    if lower in LEGACY_OPUS and not env.get(LEGACY_REMAP_OFF_ENV, "").strip():
        return FAMILIES["opus"]
    return lower if suffixed else model_id
