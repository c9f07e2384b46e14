"""The most output each model takes, as the catalogue holds it (`ModelInfo.output_ceiling`),
and the cap a request carries held to it: the same for every model as when the ceilings were
a table apart from the catalogue (the figures below are that table's)."""

from __future__ import annotations

import pytest

from tether.models.catalogue import MODELS
from tether.models.output_cap import output_ceiling, output_limit
from tether.models.resolve import resolve_model

# The retired Opus ids are asked for as themselves here: Claude Code (and tether) would send
# them as the newest Opus, which has a ceiling of its own.
KEYS = {
    "ANTHROPIC_API_KEY": "k",
    "OPENAI_API_KEY": "k",
    "OPENROUTER_API_KEY": "k",
    "CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP": "1",
}

CEILINGS = {
    # Listed Claude models: Claude Code's upper limit, 64000 for the 4.5 models, else 128000.
    "claude-fable-5-1": 128_000,
    "claude-opus-5-5": 128_000,
    "claude-sonnet-5-5": 128_000,
    "claude-haiku-5-5": 128_000,
    "claude-opus-5": 128_000,
    "claude-sonnet-5": 128_000,
    "claude-opus-4-8": 128_000,
    "claude-opus-4-7": 128_000,
    "claude-opus-4-6": 128_000,
    "claude-sonnet-4-6": 128_000,
    "claude-opus-4-5": 64_000,
    "claude-sonnet-4-5": 64_000,
    "claude-haiku-4-5": 64_000,
    "claude-sonnet-4-5-20250929": 64_000,
    # Older Claude models the catalogue does not list: by their id's prefix.
    "claude-3-5-sonnet-20241022": 8_192,
    "claude-3-sonnet-20240229": 8_192,
    "claude-3-opus-20240229": 4_096,
    "claude-3-haiku-20240307": 4_096,
    "claude-3-7-sonnet-20250219": 64_000,
    "claude-opus-4-0": 32_000,
    "claude-opus-4-1-20250805": 32_000,
    "claude-opus-4-20250514": 32_000,
    "claude-sonnet-4-0": 64_000,
    "claude-sonnet-4-20250514": 64_000,
    "claude-next-9": 128_000,
    # Listed OpenAI models: the API's most; an unlisted one (a local server's): its window.
    "openai/gpt-5": 128_000,
    "gpt-5-mini-2025-08-07": 128_000,
    "openai/gpt-4.1": 32_768,
    "openai/gpt-4o-mini": 16_384,
    "openrouter/gpt-4o": 16_384,
    "ollama/llama3": 128_000,
    "vllm/qwen3-coder": 128_000,
}


@pytest.mark.parametrize(("spec", "ceiling"), CEILINGS.items())
def test_each_models_ceiling_holds_a_users_cap(spec: str, ceiling: int) -> None:
    info = resolve_model(spec, KEYS).info
    assert (output_ceiling(info), output_limit(10**9, info), output_limit(1000, info)) == (
        ceiling,
        ceiling,
        1000,
    )
    assert output_limit(None, info) == info.max_output_tokens


def test_the_ceiling_is_never_past_the_window() -> None:
    info = resolve_model("claude-3-opus-20240229", KEYS, context_window=2_000).info
    assert (output_ceiling(info), output_limit(10**9, info)) == (2_000, 2_000)


def test_every_listed_model_holds_its_ceiling_in_the_catalogue() -> None:
    held = {model_id: info.output_ceiling for model_id, info in MODELS.items()}
    assert None not in held.values()
    named = {spec.removeprefix("openai/"): c for spec, c in CEILINGS.items()}
    assert {m: c for m, c in held.items() if m in named} == {
        m: c for m, c in named.items() if m in MODELS
    }
