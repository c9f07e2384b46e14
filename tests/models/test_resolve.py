"""From a model spec and the environment to a provider, base URL, key and catalogue entry."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tether.models.anthropic import AnthropicModel
from tether.models.catalogue import MODELS, PROVIDERS, ModelInfo, Provider
from tether.models.openai_compat import OpenAICompatModel
from tether.models.resolve import (
    DEFAULT_MODEL,
    ResolvedModel,
    build_model,
    provider_from_settings,
    resolve_model,
)
from tether.protocol import ConfigError

KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant",
    "OPENAI_API_KEY": "sk-oai",
    "OPENROUTER_API_KEY": "sk-or",
}


@pytest.mark.parametrize(
    ("spec", "provider", "model_id", "api_key"),
    [
        ("claude-sonnet-5-5", "anthropic", "claude-sonnet-5-5", "sk-ant"),
        ("claude-some-future-model", "anthropic", "claude-some-future-model", "sk-ant"),
        ("anthropic/claude-opus-5-5", "anthropic", "claude-opus-5-5", "sk-ant"),
        ("gpt-4.1", "openai", "gpt-4.1", "sk-oai"),
        ("openai/gpt-5", "openai", "gpt-5", "sk-oai"),
        (
            "openrouter/anthropic/claude-sonnet-4.5",
            "openrouter",
            "anthropic/claude-sonnet-4.5",
            "sk-or",
        ),
        ("ollama/qwen2.5-coder:7b", "ollama", "qwen2.5-coder:7b", None),
        ("vllm/Qwen/Qwen3-Coder-30B", "vllm", "Qwen/Qwen3-Coder-30B", None),
        ("llamacpp/local", "llamacpp", "local", None),
        ("some-local-model", "openai", "some-local-model", "sk-oai"),
    ],
)
def test_spec_forms(spec: str, provider: str, model_id: str, api_key: str | None) -> None:
    resolved = resolve_model(spec, KEYS)
    assert (resolved.spec, resolved.provider, resolved.model_id, resolved.api_key) == (
        spec,
        PROVIDERS[provider],
        model_id,
        api_key,
    )
    assert resolved.base_url == PROVIDERS[provider].base_url


def test_no_spec_uses_tether_model_then_default() -> None:
    assert resolve_model(None, {**KEYS, "TETHER_MODEL": "ollama/llama3"}).model_id == "llama3"
    assert resolve_model(None, KEYS).model_id == DEFAULT_MODEL
    assert DEFAULT_MODEL in MODELS


def test_base_url_variable_overrides_and_trailing_slash_goes() -> None:
    env = {**KEYS, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9000/proxy/"}
    assert resolve_model("claude-sonnet-5-5", env).base_url == "http://127.0.0.1:9000/proxy"
    env = {"OLLAMA_BASE_URL": "http://gpu-box:11434/v1"}
    assert resolve_model("ollama/qwen3", env).base_url == "http://gpu-box:11434/v1"


def test_bare_unknown_model_goes_to_an_openai_base_url_without_key() -> None:
    resolved = resolve_model("qwen3-coder", {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"})
    assert (resolved.provider.name, resolved.base_url, resolved.api_key) == (
        "openai",
        "http://127.0.0.1:8080/v1",
        None,
    )


def test_missing_key_says_exactly_what_to_set() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_model("claude-sonnet-5-5", {})
    assert str(caught.value) == (
        "No API key for anthropic (model claude-sonnet-5-5). Set ANTHROPIC_API_KEY or "
        "ANTHROPIC_AUTH_TOKEN, or choose another model with --model or TETHER_MODEL (for "
        "example ollama/qwen2.5-coder for a local Ollama)."
    )
    with pytest.raises(ConfigError, match=r"^No API key for openrouter .* Set OPENROUTER_API_KEY,"):
        resolve_model("openrouter/x/y", {"OPENROUTER_API_KEY": "  "})


def test_anthropic_base_url_does_not_excuse_a_missing_key() -> None:
    with pytest.raises(ConfigError, match="Set ANTHROPIC_API_KEY"):
        resolve_model("claude-sonnet-5-5", {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})


def test_unknown_bare_model_without_openai_endpoint_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_model("mystery-model", {"ANTHROPIC_API_KEY": "k"})
    message = str(caught.value)
    assert message.startswith("Unknown model 'mystery-model': name its provider as provider/model")
    assert "ollama/mystery-model" in message


def test_empty_model_after_provider_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="names no model"):
        resolve_model("ollama/", {})


def test_catalogue_info_and_defaults_and_context_override() -> None:
    assert resolve_model("gpt-4o", KEYS).info == MODELS["gpt-4o"]
    assert resolve_model("ollama/qwen3", {}).info == ModelInfo(
        "qwen3", "ollama", context_window=128_000, max_output_tokens=16_000
    )
    unknown_claude = resolve_model("claude-next", KEYS).info
    assert (unknown_claude.context_window, unknown_claude.input_per_mtok) == (200_000, 0.0)
    resized = resolve_model("claude-sonnet-5-5", KEYS, context_window=50_000).info
    assert resized.context_window == 50_000


def test_extra_providers_from_settings() -> None:
    lab = Provider(
        name="lab",
        wire="openai",
        base_url="http://10.0.0.5:8000/v1",
        key_env="LAB_KEY",
        base_url_env=None,
        requires_key=True,
    )
    resolved = resolve_model("lab/coder-7b", {"LAB_KEY": "s3cret"}, extra_providers={"lab": lab})
    assert (resolved.provider, resolved.model_id, resolved.base_url, resolved.api_key) == (
        lab,
        "coder-7b",
        "http://10.0.0.5:8000/v1",
        "s3cret",
    )
    with pytest.raises(ConfigError, match="Set LAB_KEY"):
        resolve_model("lab/coder-7b", {}, extra_providers={"lab": lab})


def test_build_model_picks_the_adapter_and_stays_lazy() -> None:
    claude = build_model(resolve_model("claude-haiku-4-5", KEYS))
    local = build_model(resolve_model("ollama/qwen3", {}))
    assert isinstance(claude, AnthropicModel)
    assert isinstance(local, OpenAICompatModel)
    assert (claude.model, claude.endpoint.base_url, claude.endpoint.key_env) == (
        "claude-haiku-4-5",
        "https://api.anthropic.com",
        "ANTHROPIC_API_KEY",
    )
    assert (local.model, local.endpoint.provider, local.endpoint.key_env) == (
        "qwen3",
        "ollama",
        None,
    )


def test_resolving_and_building_import_no_sdk() -> None:
    program = (
        "import sys\n"
        "from tether.models.resolve import build_model, resolve_model\n"
        "build_model(resolve_model('claude-haiku-4-5', {'ANTHROPIC_API_KEY': 'k'}))\n"
        "build_model(resolve_model('ollama/qwen3', {}))\n"
        "print(sorted(m for m in ('anthropic', 'openai', 'httpx2') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert result.stdout == "[]\n"


def test_resolved_model_is_plain_data() -> None:
    resolved = resolve_model("openai/gpt-4o", KEYS)
    assert resolved == ResolvedModel(
        spec="openai/gpt-4o",
        provider=PROVIDERS["openai"],
        model_id="gpt-4o",
        base_url="https://api.openai.com/v1",
        api_key="sk-oai",
        info=MODELS["gpt-4o"],
    )


def test_provider_from_settings() -> None:
    assert provider_from_settings(
        "lab", {"base_url": "http://10.0.0.5:8000/v1/", "key_env": "LAB_KEY"}
    ) == Provider(
        name="lab",
        wire="openai",
        base_url="http://10.0.0.5:8000/v1",
        key_env="LAB_KEY",
        base_url_env=None,
        requires_key=True,
    )
    gateway = provider_from_settings(
        "gateway", {"base_url": "https://llm.example/anthropic", "wire": "anthropic"}
    )
    assert (gateway.wire, gateway.key_env, gateway.requires_key) == ("anthropic", None, False)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("http://x", "must be an object with at least a base_url"),
        ({"key_env": "K"}, "providers.lab.base_url must be an http(s) URL"),
        ({"base_url": "http://x", "wire": "grpc"}, 'providers.lab.wire must be "openai"'),
        ({"base_url": "http://x", "url": "y"}, "providers.lab: unknown field(s) url"),
        ({"base_url": "http://x", "requires_key": True}, "requires_key needs key_env"),
    ],
)
def test_provider_from_settings_names_the_problem(value: object, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        provider_from_settings("lab", value)
    assert str(caught.value).startswith("settings: providers.lab")
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "window"),
    [
        # The models the API serves 1M without a beta run in 1M, as in Claude Code (its
        # `modelUsage` says 1000000 and it sends no 1M beta); before, tether capped them at 200k.
        ("claude-sonnet-5-5", 1_000_000),
        ("sonnet", 1_000_000),
        ("opus", 1_000_000),
        ("haiku", 1_000_000),
        ("claude-opus-4-7", 1_000_000),
        # Those that need the beta, the older ones and the unknown: 200k, as Claude Code.
        ("claude-sonnet-4-6", 200_000),
        ("claude-opus-4-6", 200_000),
        ("claude-sonnet-4-5", 200_000),
        ("claude-next", 200_000),
        # Another provider's model: the API's own window (gpt-5 was capped at 200k).
        ("openai/gpt-5", 400_000),
        ("gpt-4.1", 1_047_576),
    ],
)
def test_each_model_runs_in_its_own_window_unless_1m_is_asked_for(spec: str, window: int) -> None:
    plain = resolve_model(spec, KEYS)
    assert (plain.info.context_window, plain.long_context) == (window, False)
    assert plain.spec == spec


@pytest.mark.parametrize(
    ("spec", "model_id", "shown_id", "beta"),
    [
        # Claude Code's own (its bundled CLI against the fake server): a model that runs in
        # 1M without the beta is named, sent and run as it is, without the beta.
        ("sonnet[1m]", "claude-sonnet-5-5", "claude-sonnet-5-5", False),
        ("opus[1M]", "claude-opus-5-5", "claude-opus-5-5", False),
        ("claude-sonnet-5-5[1m]", "claude-sonnet-5-5", "claude-sonnet-5-5", False),
        ("claude-opus-4-1[1m]", "claude-opus-5-5", "claude-opus-5-5", False),
        # One that needs the beta keeps the suffix in its name (not in requests), in lower
        # case after the id as spelled, which is sent in lower case.
        ("claude-sonnet-4-6[1m]", "claude-sonnet-4-6", "claude-sonnet-4-6[1m]", True),
        ("CLAUDE-SONNET-4-6[1M]", "claude-sonnet-4-6", "CLAUDE-SONNET-4-6[1m]", True),
        ("claude-sonnet-4-5[1m][1m]", "claude-sonnet-4-5", "claude-sonnet-4-5[1m]", True),
        ("anthropic/claude-next[1m]", "claude-next", "claude-next[1m]", True),
    ],
)
def test_a_1m_suffix_opts_in_to_the_1m_window_and_is_not_sent(
    spec: str, model_id: str, shown_id: str, beta: bool
) -> None:
    long = resolve_model(spec, KEYS)
    assert (long.model_id, long.shown_id, long.info.context_window, long.long_context) == (
        model_id,
        shown_id,
        1_000_000,
        beta,
    )


def test_an_explicit_window_wins_over_the_suffix_and_the_default() -> None:
    assert resolve_model("sonnet[1m]", KEYS, context_window=300_000).info.context_window == 300_000
    assert resolve_model("haiku", KEYS, context_window=500_000).info.context_window == 500_000


def test_a_suffix_alone_names_no_model() -> None:
    with pytest.raises(ConfigError, match="names no model before"):
        resolve_model("[1m]", KEYS)
