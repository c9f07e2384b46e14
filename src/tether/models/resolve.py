"""From a model spec ("ollama/qwen2.5-coder:7b", "claude-sonnet-5-5", None) and the environment
to a configured `Model`, with a `ConfigError` that says exactly what to set when something is
missing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, cast
from urllib.parse import urlsplit

from tether.models.anthropic_env import AUTH_TOKEN_ENV, auth_token, custom_headers
from tether.models.base import Model
from tether.models.catalogue import FAMILIES, MODELS, PROVIDERS, ModelInfo, Provider, model_info
from tether.models.claude_ids import LONG_CONTEXT_SUFFIX, sent_id, split_long_context
from tether.models.idle import IdleLimits
from tether.outside_text import not_text, shown_path
from tether.protocol import ConfigError
from tether.slotted import Slotted, replaced

DEFAULT_MODEL = "claude-sonnet-5-5"
MODEL_ENV = "TETHER_MODEL"
DEFAULT_ALIAS = "default"
"""Claude Code's alias for the default model (`/model default` goes back to it)."""
PLAN_ALIAS = "opusplan"
"""Claude Code's alias for Opus in plan mode and Sonnet otherwise."""
LONG_WINDOW = 1_000_000
LONG_CONTEXT_BETA = "context-1m-2025-08-07"
"""The Anthropic beta Claude Code sends with a `[1m]` model."""
BETAS_ENV = "ANTHROPIC_BETAS"
"""Claude Code's variable (and `--betas`): more Anthropic betas, comma-separated, sent in the
`anthropic-beta` header; the 1M-context one opens the 1M window as `[1m]` does."""
_LOCAL_EXAMPLE = "ollama/qwen2.5-coder"


class ResolvedModel(Slotted):
    """Everything needed to talk to one model, decided before any HTTP library is imported."""

    __slots__ = (
        "api_key",
        "auth_token",
        "base_url",
        "betas",
        "headers",
        "info",
        "long_context",
        "model_id",
        "plan_model_id",
        "provider",
        "shown_id",
        "spec",
    )
    spec: Final[str]
    provider: Final[Provider]
    model_id: Final[str]
    base_url: Final[str]
    api_key: Final[str | None]
    info: Final[ModelInfo]
    long_context: Final[bool]
    """The spec ended in `[1m]` on a model that needs the 1M beta for it (or the beta was
    named): the 1M window was asked for, and the beta is sent."""
    betas: Final[tuple[str, ...]]
    """Anthropic betas named in `ANTHROPIC_BETAS` (`--betas`)."""
    plan_model_id: Final[str | None]
    """`opusplan`: the model that answers in plan mode (Opus), `model_id` answering otherwise
    (Sonnet), as Claude Code's alias does."""
    auth_token: Final[str | None]
    """`ANTHROPIC_AUTH_TOKEN` (anthropic provider): sent as `Authorization: Bearer`."""
    headers: Final[tuple[tuple[str, str], ...]]
    """`ANTHROPIC_CUSTOM_HEADERS` (anthropic provider): sent with every request."""
    shown_id: Final[str]
    """The name the session's reports give the model (the SDK's `init` line, `modelUsage`,
    context usage), as Claude Code gives it: the id with `[1m]` when the user opted in to a
    1M window the model does not have without it (`claude-sonnet-4-6[1m]`); `model_id`
    otherwise. Requests carry `model_id`, never the suffix."""

    def __init__(
        self,
        spec: str,
        provider: Provider,
        model_id: str,
        base_url: str,
        api_key: str | None,
        info: ModelInfo,
        long_context: bool = False,
        betas: tuple[str, ...] = (),
        plan_model_id: str | None = None,
        auth_token: str | None = None,
        headers: tuple[tuple[str, str], ...] = (),
        shown_id: str | None = None,
    ) -> None:
        self.spec = spec
        self.provider = provider
        self.model_id = model_id
        self.base_url = base_url
        self.api_key = api_key
        self.info = info
        self.long_context = long_context
        self.betas = betas
        self.plan_model_id = plan_model_id
        self.auth_token = auth_token
        self.headers = headers
        self.shown_id = shown_id or model_id


def resolve_model(
    spec: str | None,
    env: Mapping[str, str],
    *,
    extra_providers: Mapping[str, Provider] | None = None,
    context_window: int | None = None,
) -> ResolvedModel:
    """Resolve `spec` ("provider/model" or a bare model id; None means `$TETHER_MODEL`, else
    `DEFAULT_MODEL`) against the catalogue plus `extra_providers` from settings.

    A bare id goes to its catalogue provider, "claude*" to anthropic, anything else to the
    openai provider when OPENAI_BASE_URL or OPENAI_API_KEY is set. The window is the
    catalogue's (Claude Code's: 1M for the models the API serves 1M without a beta, else
    200k; the API's for another provider's), `LONG_WINDOW` (1M) when the spec ends in `[1m]`
    or the 1M beta is named; `context_window` (from TETHER_CONTEXT_WINDOW or settings)
    overrides both.
    """
    providers = {**PROVIDERS, **(extra_providers or {})}
    spec = (spec or env.get(MODEL_ENV) or DEFAULT_MODEL).strip()
    if spec.lower() == DEFAULT_ALIAS:  # Claude Code's "the default model": tether's
        chosen = (env.get(MODEL_ENV) or "").strip()
        spec = chosen if chosen and chosen.lower() != DEFAULT_ALIAS else DEFAULT_MODEL
    _check_name(spec)
    base_spec, suffixed = split_long_context(spec)
    if base_spec.lower() in FAMILIES or base_spec.lower() == PLAN_ALIAS:
        base_spec = base_spec.lower()  # Claude Code's aliases, in any case (`Sonnet`)
    plan_model_id = None
    if base_spec == PLAN_ALIAS:
        base_spec, plan_model_id = "sonnet", FAMILIES["opus"]
    betas = beta_names(env.get(BETAS_ENV, ""))
    if not base_spec:
        raise ConfigError(f"Model spec {spec!r} names no model before {LONG_CONTEXT_SUFFIX}.")
    provider, spelled = _split_spec(base_spec, providers, env)
    model_id = spelled
    if provider.name == "anthropic" and base_spec not in FAMILIES:
        model_id = sent_id(spelled, suffixed, env)
    base_url = _env_value(env, provider.base_url_env) or provider.base_url
    api_key = _env_value(env, provider.key_env)
    _check_endpoint(env, provider, api_key)
    token, headers = None, ()
    if provider.name == "anthropic":  # Claude Code's gateway variables (`anthropic_env`)
        token, headers = auth_token(env), custom_headers(env)
    # An OpenAI-compatible server named by OPENAI_BASE_URL (llama.cpp, a local proxy) often
    # takes no key.
    keyless_local = provider.wire == "openai" and _env_value(env, provider.base_url_env) is not None
    if api_key is None and token is None and base_spec in FAMILIES:
        # Not sent to an OpenAI-compatible endpoint: it would not know the name.
        raise ConfigError(
            f"Model {base_spec!r} is Claude Code's alias for {model_id}, on Anthropic: set "
            f"{provider.key_env} (or {AUTH_TOKEN_ENV}), or name a model of another provider "
            "as provider/model "
            f"(for example openai/<model> for OPENAI_BASE_URL)."
        )
    if api_key is None and token is None and provider.requires_key and not keyless_local:
        either = f"{provider.key_env} or {AUTH_TOKEN_ENV}" if provider.name == "anthropic" else None
        raise ConfigError(
            f"No API key for {provider.name} (model {model_id}). Set {either or provider.key_env}, "
            f"or choose another model with --model or {MODEL_ENV} "
            f"(for example {_LOCAL_EXAMPLE} for a local Ollama)."
        )
    info = model_info(model_id, provider)
    if suffixed and provider.wire != "anthropic" and info.context_window < LONG_WINDOW:
        # A window the model does not have: compaction would come too late, and the endpoint
        # would refuse the request that overflows its own.
        raise ConfigError(
            f"Model spec {spec!r}: {LONG_CONTEXT_SUFFIX} asks for a 1M-token window, which only "
            f"Claude models take; {model_id} has a {info.context_window:,}-token window. Drop "
            f"the suffix (or set TETHER_CONTEXT_WINDOW for a server whose window tether does "
            "not know)."
        )
    # A model that runs in 1M without the beta is sent none for a `[1m]` (as Claude Code).
    long_context = LONG_CONTEXT_BETA in betas or (suffixed and info.context_window < LONG_WINDOW)
    shown_id = model_id
    if suffixed and info.context_window < LONG_WINDOW:
        # A model that runs in 1M without the opt-in is named without it (`sonnet[1m]` is
        # claude-sonnet-5-5); another keeps it, after the id as the user spelled it.
        shown_id = spelled + LONG_CONTEXT_SUFFIX
    if context_window is None:
        context_window = LONG_WINDOW if long_context else info.context_window
    info = replaced(info, context_window=context_window)
    return ResolvedModel(
        spec,
        provider,
        model_id,
        base_url.rstrip("/"),
        api_key,
        info,
        long_context,
        betas,
        plan_model_id,
        token,
        headers,
        shown_id,
    )


def beta_names(text: str) -> tuple[str, ...]:
    """The betas of a comma-separated list, each once, in order."""
    return tuple(dict.fromkeys(b.strip() for b in text.split(",") if b.strip()))


MAX_NAME_CHARS = 256


def _check_name(spec: str) -> None:
    """Refuse a model name that is not printable text (from any door: a flag, the environment,
    settings, a client's request): it would go into every request body and every output line,
    where bytes that are not UTF-8, control characters or terminal escapes do harm."""
    if len(spec) > MAX_NAME_CHARS:
        raise ConfigError(f"Model name is {len(spec):,} characters long: no model is named so.")
    if not spec.isprintable() or "\ufffd" in spec:
        shown = repr(shown_path(spec[:80]))  # bytes of argv as \\xff, not as surrogates
        raise ConfigError(
            f"Model name {shown} is not printable text (control characters, or bytes that are "
            "not UTF-8): give the model's id as plain text."
        )


def _split_spec(
    spec: str, providers: Mapping[str, Provider], env: Mapping[str, str]
) -> tuple[Provider, str]:
    prefix, slash, rest = spec.partition("/")
    if slash and prefix in providers:
        if not rest:
            raise ConfigError(f"Model spec {spec!r} names no model after {prefix!r}/.")
        return providers[prefix], rest
    if spec in FAMILIES:
        return providers["anthropic"], FAMILIES[spec]
    known = MODELS.get(spec)
    if known is not None and known.provider in providers:
        return providers[known.provider], spec
    if spec.lower().startswith("claude"):
        return providers["anthropic"], spec
    if _env_value(env, "OPENAI_BASE_URL") or _env_value(env, "OPENAI_API_KEY"):
        return providers["openai"], spec
    names = ", ".join(sorted(providers))
    raise ConfigError(
        f"Unknown model {spec!r}: name its provider as provider/model "
        f"(providers: {names}), e.g. ollama/{spec}, or set OPENAI_BASE_URL to an "
        f"OpenAI-compatible endpoint."
    )


def provider_from_settings(name: str, value: object) -> Provider:
    """A provider defined in settings, e.g.
    `"providers": {"lab": {"base_url": "http://10.0.0.5:8000/v1", "key_env": "LAB_KEY"}}`.

    Fields: `base_url` (required), `wire` ("openai", the default, or "anthropic"), `key_env`,
    `base_url_env`, `requires_key` (default: true when `key_env` is given), `max_tokens_param`
    ("max_tokens" or "max_completion_tokens"), `description`.
    """
    where = f"settings: providers.{name}"
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be an object with at least a base_url")
    fields = cast(Mapping[str, object], value)
    unknown = sorted(set(fields) - _PROVIDER_FIELDS)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}")
    base_url = fields.get("base_url")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}.base_url must be an http(s) URL")
    problem = _url_problem(base_url)
    if problem is not None:
        raise ConfigError(f"{where}.base_url is not a valid URL ({problem})")
    wire = fields.get("wire", "openai")
    if wire not in ("openai", "anthropic"):
        raise ConfigError(f'{where}.wire must be "openai" or "anthropic"')
    max_tokens_param = fields.get("max_tokens_param", "max_tokens")
    if max_tokens_param not in ("max_tokens", "max_completion_tokens"):
        raise ConfigError(
            f'{where}.max_tokens_param must be "max_tokens" or "max_completion_tokens"'
        )
    key_env = _optional_text(fields, "key_env", where)
    requires_key = fields.get("requires_key", key_env is not None)
    if not isinstance(requires_key, bool):
        raise ConfigError(f"{where}.requires_key must be true or false")
    if requires_key and key_env is None:
        raise ConfigError(f"{where}: requires_key needs key_env, the variable holding the key")
    return Provider(
        name=name,
        wire=wire,
        base_url=base_url.rstrip("/"),
        key_env=key_env,
        base_url_env=_optional_text(fields, "base_url_env", where),
        requires_key=requires_key,
        max_tokens_param=max_tokens_param,
        description=_optional_text(fields, "description", where) or "",
    )


_PROVIDER_FIELDS = frozenset(
    {
        "base_url",
        "wire",
        "key_env",
        "base_url_env",
        "requires_key",
        "max_tokens_param",
        "description",
    }
)


def _optional_text(fields: Mapping[str, object], key: str, where: str) -> str | None:
    value = fields.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{where}.{key} must be a non-empty string")
    return value


def _url_problem(url: str) -> str | None:
    """Why `url` cannot be connected to as it is written (a port out of range or not a
    number, an unclosed IPv6 bracket), said once here rather than as a traceback when sent."""
    try:
        urlsplit(url).port  # noqa: B018 (parsed for its error)
    except ValueError as e:
        return str(e)
    return None


def _check_endpoint(env: Mapping[str, str], provider: Provider, api_key: str | None) -> None:
    """A base URL from the environment that is no URL, or a key that cannot go in an HTTP
    header, is said in one sentence before any request (not as a traceback when sent)."""
    named = provider.base_url_env
    raw = _env_value(env, named)
    if named is not None and raw is not None and (problem := _url_problem(raw)) is not None:
        raise ConfigError(
            f"{named} is not a valid URL ({problem}): set it to http(s)://host[:port]"
        )
    if api_key is not None and not api_key.isascii():
        at = next(i for i, c in enumerate(api_key) if not c.isascii())
        raise ConfigError(
            f"{provider.key_env} holds a character that is not ASCII (at position {at}): "
            "an API key is ASCII text; set it again, or unset it"
        )


def _env_value(env: Mapping[str, str], name: str | None) -> str | None:
    if name is None:
        return None
    value = env.get(name, "").strip()
    problem = not_text(name, value)  # a provider's own variable (`key_env` in settings)
    if problem is not None:
        raise ConfigError(problem)
    return value or None


def build_model(resolved: ResolvedModel, *, idle: IdleLimits | None = None) -> Model:
    """The adapter for `resolved`; `idle` overrides the endpoint's default idle timeout."""
    provider = resolved.provider
    if provider.wire == "anthropic":
        from tether.models.anthropic import AnthropicModel

        return AnthropicModel(
            model=resolved.model_id,
            api_key=resolved.api_key,
            auth_token=resolved.auth_token,
            default_headers=dict(resolved.headers),
            base_url=resolved.base_url,
            provider=provider.name,
            key_env=provider.key_env,
            thinking=resolved.info.thinking,
            efforts=resolved.info.efforts,
            default_effort=resolved.info.default_effort,
            betas=beta_names(
                ",".join((*resolved.betas, LONG_CONTEXT_BETA if resolved.long_context else ""))
            ),
            idle=idle,
        )
    from tether.models.openai_compat import OpenAICompatModel

    return OpenAICompatModel(
        model=resolved.model_id,
        api_key=resolved.api_key,
        base_url=resolved.base_url,
        max_tokens_param=provider.max_tokens_param,
        provider=provider.name,
        key_env=provider.key_env,
        idle=idle,
        efforts=resolved.info.efforts,
    )
