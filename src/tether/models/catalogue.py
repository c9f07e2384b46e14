"""Providers and models as data: where each endpoint is, which key it takes, what a token costs.

Prices are list prices in US dollars per million tokens; 0 means unknown. A cache write is the
five-minute write. Settings can add OpenAI-compatible providers of their own (see `resolve`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from tether.protocol import Usage
from tether.slotted import Slotted, replaced

if TYPE_CHECKING:  # the adapters' modules are loaded when a model is built, not before
    from tether.models.anthropic_request import ThinkingStyle
    from tether.models.openai_compat import MaxTokensParam

Wire = Literal["anthropic", "openai"]


class Provider(Slotted):
    """An endpoint family: the wire format it speaks, its default base URL and its key."""

    __slots__ = (
        "base_url",
        "base_url_env",
        "description",
        "key_env",
        "max_tokens_param",
        "name",
        "requires_key",
        "wire",
    )
    name: Final[str]
    wire: Final[Wire]
    base_url: Final[str]
    key_env: Final[str | None]
    """Environment variable holding the API key; None when the endpoint takes none."""
    base_url_env: Final[str | None]
    """Environment variable that overrides `base_url` (a proxy, a gateway, another host)."""
    requires_key: Final[bool]
    max_tokens_param: Final[MaxTokensParam]
    """OpenAI wire only: newer OpenAI models reject `max_tokens` for `max_completion_tokens`."""
    description: Final[str]

    def __init__(
        self,
        name: str,
        wire: Wire,
        base_url: str,
        key_env: str | None,
        base_url_env: str | None,
        requires_key: bool,
        max_tokens_param: MaxTokensParam = "max_tokens",
        description: str = "",
    ) -> None:
        self.name = name
        self.wire = wire
        self.base_url = base_url
        self.key_env = key_env
        self.base_url_env = base_url_env
        self.requires_key = requires_key
        self.max_tokens_param = max_tokens_param
        self.description = description


class ModelInfo(Slotted):
    """What tether needs to know about a model: its limits and its prices."""

    __slots__ = (
        "cache_read_per_mtok",
        "cache_write_per_mtok",
        "context_window",
        "default_effort",
        "efforts",
        "id",
        "input_per_mtok",
        "max_output_tokens",
        "output_ceiling",
        "output_per_mtok",
        "provider",
        "thinking",
    )
    id: Final[str]
    provider: Final[str]
    context_window: Final[int]
    """The window the model is run in unless the user opts in to 1M (a `[1m]` suffix, the 1M
    beta): Claude Code's for a Claude model (1M for those the API serves 1M without a beta,
    200k for those that need it), the API's for another."""
    max_output_tokens: Final[int]
    """The output cap a request carries unless the user sets one: Claude Code's for a Claude
    model (measured: its bundled CLI's requests), not always the most the API takes."""
    output_ceiling: Final[int | None]
    """The most output a request may ask for (a user's cap is held to it, and to the window):
    Claude Code's upper limit for a Claude model (`claude_output_ceiling`), the API's for
    another listed model; None: unknown (a local server's model), its window."""
    input_per_mtok: Final[float]
    output_per_mtok: Final[float]
    cache_write_per_mtok: Final[float]
    cache_read_per_mtok: Final[float]
    thinking: Final[ThinkingStyle]
    """Anthropic wire: how a thinking budget is asked for. Older models take
    `{"type": "enabled", "budget_tokens": N}`; newer ones reject it and take `adaptive`."""
    efforts: Final[tuple[str, ...]]
    """The effort levels the model takes (`output_config.effort` on the Messages API,
    `reasoning_effort` on Chat Completions), least first; none: it takes no effort level."""
    default_effort: Final[str | None]
    """The level a request carries when none is asked, where Claude Code's differs from the
    Messages API's own (`effort.API_DEFAULT_EFFORT`, `high`); None: the API's."""

    def __init__(
        self,
        id: str,
        provider: str,
        context_window: int,
        max_output_tokens: int,
        input_per_mtok: float = 0.0,
        output_per_mtok: float = 0.0,
        cache_write_per_mtok: float = 0.0,
        cache_read_per_mtok: float = 0.0,
        thinking: ThinkingStyle = "adaptive",
        efforts: tuple[str, ...] = (),
        default_effort: str | None = None,
        output_ceiling: int | None = None,
    ) -> None:
        self.id = id
        self.provider = provider
        self.context_window = context_window
        self.max_output_tokens = max_output_tokens
        self.input_per_mtok = input_per_mtok
        self.output_per_mtok = output_per_mtok
        self.cache_write_per_mtok = cache_write_per_mtok
        self.cache_read_per_mtok = cache_read_per_mtok
        self.thinking = thinking
        self.efforts = efforts
        self.default_effort = default_effort
        self.output_ceiling = output_ceiling


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            name="anthropic",
            wire="anthropic",
            base_url="https://api.anthropic.com",
            key_env="ANTHROPIC_API_KEY",
            base_url_env="ANTHROPIC_BASE_URL",
            requires_key=True,
            description="Claude models through Anthropic's API",
        ),
        Provider(
            name="openai",
            wire="openai",
            base_url="https://api.openai.com/v1",
            key_env="OPENAI_API_KEY",
            base_url_env="OPENAI_BASE_URL",
            requires_key=True,
            max_tokens_param="max_completion_tokens",
            description="OpenAI's API, or the endpoint named in OPENAI_BASE_URL",
        ),
        Provider(
            name="openrouter",
            wire="openai",
            base_url="https://openrouter.ai/api/v1",
            key_env="OPENROUTER_API_KEY",
            base_url_env="OPENROUTER_BASE_URL",
            requires_key=True,
            description="many vendors' models through OpenRouter",
        ),
        Provider(
            name="ollama",
            wire="openai",
            base_url="http://localhost:11434/v1",
            key_env=None,
            base_url_env="OLLAMA_BASE_URL",
            requires_key=False,
            description="local models served by Ollama",
        ),
        Provider(
            name="vllm",
            wire="openai",
            base_url="http://localhost:8000/v1",
            key_env="VLLM_API_KEY",
            base_url_env="VLLM_BASE_URL",
            requires_key=False,
            description="a vLLM server (set VLLM_API_KEY if it was started with --api-key)",
        ),
        Provider(
            name="llamacpp",
            wire="openai",
            base_url="http://localhost:8080/v1",
            key_env=None,
            base_url_env="LLAMACPP_BASE_URL",
            requires_key=False,
            description="a llama.cpp server (llama-server)",
        ),
    )
}


_M = 1_000_000
_K = 1_000

_CLAUDE_CEILINGS: tuple[tuple[str, int], ...] = (
    ("claude-3-5-", 8 * 1024),
    ("claude-3-sonnet", 8 * 1024),
    ("claude-3-opus", 4 * 1024),
    ("claude-3-haiku", 4 * 1024),
    ("claude-3-7-", 64 * _K),
    ("claude-opus-4-0", 32 * _K),
    ("claude-opus-4-1", 32 * _K),
    ("claude-opus-4-2025", 32 * _K),
    ("claude-sonnet-4-0", 64 * _K),
    ("claude-sonnet-4-2025", 64 * _K),
    ("claude-opus-4-5", 64 * _K),
    ("claude-sonnet-4-5", 64 * _K),
    ("claude-haiku-4-5", 64 * _K),
)
"""Claude Code's upper limit of each older Claude model's output, by id prefix, first match
(measured: its bundled CLI's model table); a newer or unknown Claude model's is 128000."""


def claude_output_ceiling(model_id: str) -> int:
    """The most output Claude Code lets a request to the Claude model `model_id` ask for."""
    found = (c for prefix, c in _CLAUDE_CEILINGS if model_id.lower().startswith(prefix))
    return next(found, 128 * _K)


def _claude(
    model_id: str,
    context: int,
    output: int,
    price_in: float,
    price_out: float,
    thinking: ThinkingStyle,
    efforts: tuple[str, ...] = (),
    default_effort: str | None = None,
) -> ModelInfo:
    # Anthropic's cache prices follow the input price: five-minute writes 1.25x, reads 0.1x.
    cache_write, cache_read = price_in * 1.25, price_in * 0.1
    return ModelInfo(
        model_id,
        "anthropic",
        context,
        output,
        price_in,
        price_out,
        cache_write,
        cache_read,
        thinking,
        efforts,
        default_effort,
        claude_output_ceiling(model_id),
    )


def _openai(
    model_id: str,
    context: int,
    output: int,
    price_in: float,
    price_out: float,
    cached: float,
    efforts: tuple[str, ...] = (),
) -> ModelInfo:
    # OpenAI charges no premium for writing its cache.
    return ModelInfo(
        model_id,
        "openai",
        context,
        output,
        price_in,
        price_out,
        price_in,
        cached,
        efforts=efforts,
        output_ceiling=output,
    )


# The effort levels each model takes. Opus 4.5 was the first (three levels); `max` came with
# the 4.6 models, `xhigh` with Opus 4.7; Haiku takes none before 5.5. OpenAI's reasoning
# models take `reasoning_effort`, from `minimal`.
_E_OPUS_4_5 = ("low", "medium", "high")
_E_4_6 = ("low", "medium", "high", "max")
_E_ALL = ("low", "medium", "high", "xhigh", "max")
_E_REASONING = ("minimal", "low", "medium", "high")
_E_O_SERIES = ("low", "medium", "high")


_LISTED: tuple[ModelInfo, ...] = (
    # Window and output cap as Claude Code runs each model (measured: its bundled CLI's
    # requests and `modelUsage`): the 1M models that need the 1M beta (Sonnet and Opus 4.6)
    # run in 200k without it; the 4.5 models get 32000 with a 31999 thinking budget.
    _claude("claude-fable-5-1", _M, 64 * _K, 10.0, 50.0, "adaptive", _E_ALL),
    # Claude Code asks the 5.5 models for `medium` when no level is asked, Opus 4.7 for
    # `xhigh`, the others for the API's `high` (measured: the request its bundled CLI sends;
    # it sends Haiku 5.5 every level as asked, `xhigh` and `max` too).
    _claude("claude-opus-5-5", _M, 128 * _K, 4.0, 20.0, "adaptive", _E_ALL, "medium"),
    _claude("claude-sonnet-5-5", _M, 128 * _K, 2.0, 10.0, "adaptive", _E_ALL, "medium"),
    # Prompts over 100k tokens cost five times as much on Haiku 5.5; this is the base price.
    _claude("claude-haiku-5-5", _M, 128 * _K, 0.10, 0.50, "adaptive", _E_ALL, "medium"),
    _claude("claude-opus-5", _M, 64 * _K, 5.0, 25.0, "adaptive", _E_ALL),
    _claude("claude-sonnet-5", _M, 64 * _K, 2.0, 10.0, "adaptive", _E_ALL),
    _claude("claude-opus-4-8", _M, 64 * _K, 5.0, 25.0, "adaptive", _E_ALL),
    _claude("claude-opus-4-7", _M, 64 * _K, 5.0, 25.0, "adaptive", _E_ALL, "xhigh"),
    _claude("claude-opus-4-6", 200 * _K, 64 * _K, 5.0, 25.0, "adaptive", _E_4_6),
    _claude("claude-sonnet-4-6", 200 * _K, 32 * _K, 3.0, 15.0, "adaptive", _E_4_6),
    _claude("claude-opus-4-5", 200 * _K, 32 * _K, 5.0, 25.0, "budget", _E_OPUS_4_5),
    _claude("claude-sonnet-4-5", 200 * _K, 32 * _K, 3.0, 15.0, "budget"),
    _claude("claude-haiku-4-5", 200 * _K, 32 * _K, 1.0, 5.0, "budget"),
    _openai("gpt-5", 400 * _K, 128 * _K, 1.25, 10.0, 0.125, _E_REASONING),
    _openai("gpt-5-mini", 400 * _K, 128 * _K, 0.25, 2.0, 0.025, _E_REASONING),
    _openai("gpt-4.1", 1_047_576, 32_768, 2.0, 8.0, 0.50),
    _openai("gpt-4.1-mini", 1_047_576, 32_768, 0.40, 1.60, 0.10),
    _openai("gpt-4o", 128 * _K, 16_384, 2.50, 10.0, 1.25),
    _openai("gpt-4o-mini", 128 * _K, 16_384, 0.15, 0.60, 0.075),
    # OpenAI's reasoning models, at the prices of OpenAI's pricing page (o3 since its June 2025
    # cut); window 200k, replies up to 100k.
    _openai("o3", 200 * _K, 100 * _K, 2.0, 8.0, 0.50, _E_O_SERIES),
    _openai("o4-mini", 200 * _K, 100 * _K, 1.10, 4.40, 0.275, _E_O_SERIES),
    _openai("o3-mini", 200 * _K, 100 * _K, 1.10, 4.40, 0.55, _E_O_SERIES),
)

FAMILIES = {
    "opus": "claude-opus-5-5",
    "sonnet": "claude-sonnet-5-5",
    "haiku": "claude-haiku-5-5",
    "best": "claude-opus-5-5",
}
"""Claude Code's model aliases: the newest model of each family, on Anthropic (`--model opus`,
settings' `model`, a subagent's `model: haiku`); `best` is its name for the most capable one
(Opus). Claude Code reads them in any case (`Sonnet`, `OPUS`)."""

# Dated snapshot ids of the aliases above.
_SNAPSHOTS = {
    "claude-opus-4-5-20251101": "claude-opus-4-5",
    "claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
    "claude-haiku-4-5-20251001": "claude-haiku-4-5",
    "gpt-5-2025-08-07": "gpt-5",
    "gpt-5-mini-2025-08-07": "gpt-5-mini",
}

MODELS: dict[str, ModelInfo] = {m.id: m for m in _LISTED}
MODELS.update({dated: replaced(MODELS[alias], id=dated) for dated, alias in _SNAPSHOTS.items()})


def canonical_id(model_id: str) -> str:
    """The catalogue's name of a model a dated snapshot id names (Claude Code's
    `canonicalModel`); any other id as it is."""
    return _SNAPSHOTS.get(model_id, model_id)


# Claude models older than the catalogue that take a thinking budget rather than `adaptive`
# (Claude Code sends them `enabled` with a budget: Opus and Sonnet 4, by every name).
_BUDGET_THINKING_PREFIXES = (
    "claude-opus-4-0",
    "claude-opus-4-1",
    "claude-opus-4-2",
    "claude-sonnet-4-0",
    "claude-sonnet-4-2",
)
_BUDGET_THINKING_IDS = ("claude-opus-4", "claude-sonnet-4")

_UNTHINKING_PREFIXES = ("claude-3-",)
"""Claude models Claude Code asks for no thinking: Claude 3 and 3.5, and 3.7 too (measured:
its bundled CLI sends 3.7 no `thinking`, even with `--max-thinking-tokens` or
`MAX_THINKING_TOKENS`)."""

_RETIRED_CLAUDE_PRICES: tuple[tuple[str, float, float], ...] = (
    ("claude-3-7-sonnet", 3.0, 15.0),
    ("claude-3-5-sonnet", 3.0, 15.0),
    ("claude-3-sonnet", 3.0, 15.0),
    ("claude-sonnet-4-0", 3.0, 15.0),
    ("claude-sonnet-4-2025", 3.0, 15.0),
    ("claude-3-5-haiku", 0.8, 4.0),
    ("claude-3-haiku", 0.25, 1.25),
    ("claude-3-opus", 15.0, 75.0),
    ("claude-opus-4-0", 15.0, 75.0),
    ("claude-opus-4-1", 15.0, 75.0),
    ("claude-opus-4-2025", 15.0, 75.0),
)
"""List prices (input, output per million tokens) of Claude models the catalogue does not
list by id, by prefix (dated ids, `-latest`): Claude Code prices them, so a budget stops a
session on them (priced $0, `--max-budget-usd` never stopped one)."""

_DEFAULT_CONTEXT = {"anthropic": 200 * _K, "openai": 128 * _K}
_DEFAULT_OUTPUT = {"anthropic": 32 * _K, "openai": 16 * _K}


def model_info(model_id: str, provider: Provider) -> ModelInfo:
    """The catalogue entry for `model_id`, or a default for the provider's wire format
    (prices 0 = unknown) when the catalogue does not know it. A Claude id is looked up in
    any case (`CLAUDE-SONNET-4-5` has Sonnet 4.5's limits, as in Claude Code); the entry
    keeps the id as given, which is what is sent."""
    known = MODELS.get(model_id)
    if known is not None:
        return known
    lower = model_id.lower()
    if provider.wire == "anthropic" and (cased := MODELS.get(lower)) is not None:
        return replaced(cased, id=model_id)
    thinking: ThinkingStyle = (
        "budget"
        if lower.startswith(_BUDGET_THINKING_PREFIXES) or lower in _BUDGET_THINKING_IDS
        else "none"
        if lower.startswith(_UNTHINKING_PREFIXES)
        else "adaptive"
    )
    output = _DEFAULT_OUTPUT[provider.wire]
    if provider.name == "anthropic":
        # Claude Code sends the Claude 3 and 3.5 models the most each takes (measured: 8192
        # for 3.5, 4096 for Claude 3 Opus and Haiku), later ones the default.
        output = min(output, claude_output_ceiling(model_id) or output)
        priced = next((p for p in _RETIRED_CLAUDE_PRICES if lower.startswith(p[0])), None)
        if priced is not None:
            return _claude(model_id, _DEFAULT_CONTEXT["anthropic"], output, *priced[1:], thinking)
    return ModelInfo(
        model_id,
        provider.name,
        _DEFAULT_CONTEXT[provider.wire],
        output,
        thinking=thinking,
        output_ceiling=claude_output_ceiling(model_id) if provider.name == "anthropic" else None,
    )


WEB_SEARCH_USD = 0.01
"""What one web search the Messages API runs costs: $10 per 1,000 searches, on top of the
tokens its results take (Anthropic's price list; Claude Code prices `webSearchRequests` at
0.01 too)."""


ONE_HOUR_WRITE_FACTOR = 2.0
"""A cache write kept for an hour costs twice the input price (Anthropic's price list; a
five-minute write is `cache_write_per_mtok`, 1.25 times)."""


def cost_usd(info: ModelInfo, usage: Usage) -> float:
    """What `usage` cost at `info`'s list prices, its web searches included (0.0 when the
    prices are unknown). The cache writes the API says were kept for an hour are priced at
    the hour's rate, the rest at the five-minute rate."""
    one_hour = min(usage.ephemeral_1h_input_tokens or 0, usage.cache_creation_input_tokens)
    tokens = (
        usage.input_tokens * info.input_per_mtok
        + usage.output_tokens * info.output_per_mtok
        + (usage.cache_creation_input_tokens - one_hour) * info.cache_write_per_mtok
        + one_hour * info.input_per_mtok * ONE_HOUR_WRITE_FACTOR
        + usage.cache_read_input_tokens * info.cache_read_per_mtok
    ) / _M
    return tokens + usage.web_search_requests * web_search_usd(info)


def web_search_usd(info: ModelInfo) -> float:
    """The price of one web search for `info`: unknown (0.0) with its token prices."""
    return WEB_SEARCH_USD if info.input_per_mtok or info.output_per_mtok else 0.0
