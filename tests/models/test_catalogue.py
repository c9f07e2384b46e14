"""The provider and model tables, and what a call cost."""

from __future__ import annotations

import pytest

from tether.models.catalogue import MODELS, PROVIDERS, ModelInfo, cost_usd
from tether.protocol import Usage
from tether.slotted import replaced


def test_cost_adds_each_kind_of_token_at_its_price() -> None:
    info = ModelInfo(
        "m",
        "anthropic",
        context_window=200_000,
        max_output_tokens=8_000,
        input_per_mtok=3.0,
        output_per_mtok=15.0,
        cache_write_per_mtok=3.75,
        cache_read_per_mtok=0.30,
    )
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=200_000,
        cache_creation_input_tokens=400_000,
        cache_read_input_tokens=2_000_000,
    )
    assert cost_usd(info, usage) == pytest.approx(3.0 + 3.0 + 1.5 + 0.6)


def test_one_hour_cache_writes_cost_the_hours_rate() -> None:
    """The API splits the writes by lifetime: an hour's cost twice the input price (6 $/M for
    sonnet-4-5), five minutes' 1.25 times (3.75 $/M), as Claude Code prices them."""
    sonnet = MODELS["claude-sonnet-4-5"]
    split = Usage(
        cache_creation_input_tokens=6_710,
        ephemeral_5m_input_tokens=4_474,
        ephemeral_1h_input_tokens=2_236,
    )
    assert cost_usd(sonnet, split) == pytest.approx((4_474 * 3.75 + 2_236 * 6.0) / 1e6)
    unsplit = Usage(cache_creation_input_tokens=6_710)
    assert cost_usd(sonnet, unsplit) == pytest.approx(6_710 * 3.75 / 1e6)


def test_unknown_prices_cost_nothing() -> None:
    info = ModelInfo("local", "ollama", context_window=32_000, max_output_tokens=4_000)
    assert cost_usd(info, Usage(input_tokens=5_000, output_tokens=100)) == 0.0


def test_claude_cache_prices_follow_the_input_price() -> None:
    sonnet = MODELS["claude-sonnet-4-5"]
    assert (sonnet.input_per_mtok, sonnet.cache_write_per_mtok, sonnet.cache_read_per_mtok) == (
        pytest.approx(3.0),
        pytest.approx(3.75),
        pytest.approx(0.30),
    )
    assert MODELS["claude-sonnet-4-5-20250929"] == replaced(sonnet, id="claude-sonnet-4-5-20250929")


def test_every_model_names_a_known_provider_and_sane_limits() -> None:
    for info in MODELS.values():
        assert info.provider in PROVIDERS, info.id
        assert 0 < info.max_output_tokens < info.context_window, info.id
        assert info.output_per_mtok >= info.input_per_mtok >= info.cache_read_per_mtok, info.id


def test_thinking_style_per_generation() -> None:
    assert MODELS["claude-haiku-4-5"].thinking == "budget"
    assert MODELS["claude-sonnet-5-5"].thinking == "adaptive"
