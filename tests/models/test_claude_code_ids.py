"""Model names as Claude Code reads them (measured: its bundled CLI's requests against the
fake server): retired Opus ids sent to the newest Opus, aliases and ids in any case, and the
limits and thinking of the older Claude models it knows."""

from __future__ import annotations

import pytest

from tether.models.catalogue import FAMILIES
from tether.models.resolve import resolve_model

KEYS = {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai"}
NEWEST_OPUS = FAMILIES["opus"]


@pytest.mark.parametrize(
    "spec",
    [
        "claude-opus-4-0",
        "claude-opus-4-1",
        "claude-opus-4-20250514",
        "claude-opus-4-1-20250805",
        "Claude-Opus-4-1",
        "CLAUDE-OPUS-4-0",
        "claude-opus-4-1[1m]",
        "anthropic/claude-opus-4-1",
    ],
)
def test_a_retired_opus_id_is_sent_as_the_newest_opus(spec: str) -> None:
    resolved = resolve_model(spec, KEYS)
    assert (resolved.model_id, resolved.shown_id, resolved.long_context) == (
        NEWEST_OPUS,
        NEWEST_OPUS,
        False,
    )
    assert resolved.info.context_window == 1_000_000


def test_the_remap_can_be_turned_off_as_in_claude_code() -> None:
    env = {**KEYS, "CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP": "1"}
    resolved = resolve_model("claude-opus-4-1", env)
    assert (resolved.model_id, resolved.info.context_window, resolved.info.thinking) == (
        "claude-opus-4-1",
        200_000,
        "budget",
    )


@pytest.mark.parametrize(
    ("spec", "model_id", "plan_model_id"),
    [
        ("Sonnet", "claude-sonnet-5-5", None),
        ("OPUS", "claude-opus-5-5", None),
        ("Haiku[1M]", "claude-haiku-5-5", None),
        ("best", "claude-opus-5-5", None),
        ("OpusPlan", "claude-sonnet-5-5", "claude-opus-5-5"),
    ],
)
def test_aliases_are_read_in_any_case(spec: str, model_id: str, plan_model_id: str | None) -> None:
    resolved = resolve_model(spec, KEYS)
    assert (resolved.provider.name, resolved.model_id, resolved.plan_model_id) == (
        "anthropic",
        model_id,
        plan_model_id,
    )


@pytest.mark.parametrize(
    ("spec", "window", "cap", "thinking"),
    [
        # Sent as spelled, to Anthropic (it went to the OpenAI endpoint), with the limits
        # and thinking of the model it names.
        ("CLAUDE-SONNET-4-5", 200_000, 32_000, "budget"),
        ("Claude-Opus-4-7", 1_000_000, 64_000, "adaptive"),
        # Claude Code asks 3.7 for no thinking at all, even given a budget.
        ("claude-3-7-sonnet-20250219", 200_000, 32_000, "none"),
        ("claude-3-7-sonnet-latest", 200_000, 32_000, "none"),
        ("claude-3-5-sonnet-20241022", 200_000, 8_192, "none"),
        ("claude-3-5-haiku-20241022", 200_000, 8_192, "none"),
        ("claude-3-opus-20240229", 200_000, 4_096, "none"),
        ("claude-3-haiku-20240307", 200_000, 4_096, "none"),
        ("claude-sonnet-4", 200_000, 32_000, "budget"),
        ("claude-opus-4", 200_000, 32_000, "budget"),
        ("claude-sonnet-4-20250514", 200_000, 32_000, "budget"),
        ("claude-sonnet-4-0", 200_000, 32_000, "budget"),
    ],
)
def test_older_and_differently_cased_claude_ids_get_claude_codes_limits(
    spec: str, window: int, cap: int, thinking: str
) -> None:
    resolved = resolve_model(spec, KEYS)
    info = resolved.info
    assert (resolved.provider.name, resolved.model_id, resolved.shown_id) == (
        "anthropic",
        spec,
        spec,
    )
    assert (info.id, info.context_window, info.max_output_tokens, info.thinking) == (
        spec,
        window,
        cap,
        thinking,
    )
