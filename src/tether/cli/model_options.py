"""The session's model from the flag, the environment and the settings, and the limits put on
its calls there: output cap, idle timeout, retry delay."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from tether.config.settings import Settings
from tether.core.model_call import RetryPolicy
from tether.models.base import Model
from tether.models.idle import IDLE_TIMEOUT_ENV, IDLE_TIMEOUT_SETTING, IdleLimits
from tether.models.resolve import ResolvedModel, provider_from_settings, resolve_model
from tether.protocol import ConfigError


def resolve(flag: str | None, env: Mapping[str, str], settings: Settings) -> ResolvedModel:
    """--model, then TETHER_MODEL, then the settings' `model`, then the default."""
    spec = flag or env.get("TETHER_MODEL") or settings.model
    window = env.get("TETHER_CONTEXT_WINDOW")
    context_window = settings.context_window
    if window:
        try:
            context_window = int(window)
        except ValueError:
            raise ConfigError(
                f"TETHER_CONTEXT_WINDOW must be a number of tokens, not {window!r}"
            ) from None
    extra = {
        name: provider_from_settings(name, value) for name, value in settings.providers.items()
    }
    return resolve_model(spec, env, extra_providers=extra, context_window=context_window)


def max_output_tokens(env: Mapping[str, str], settings: Settings) -> int | None:
    """`TETHER_MAX_OUTPUT_TOKENS` or the `maxOutputTokens` setting: a cap on each reply, for
    local servers whose context is smaller than the catalogue's default output budget."""
    value = env.get("TETHER_MAX_OUTPUT_TOKENS")
    if value is None:
        return settings.max_output_tokens
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"TETHER_MAX_OUTPUT_TOKENS must be a positive number, not {value!r}")
    return int(value)


def priced_but_unknown(resolved: ResolvedModel) -> bool:
    """A model that costs money (its provider wants a key: not a local server) whose prices
    the catalogue does not know: its spend counts as $0, so no budget can stop it."""
    info = resolved.info
    return resolved.provider.requires_key and info.input_per_mtok == info.output_per_mtok == 0


def warm_meanwhile(model: Model) -> None:
    """Build the model's HTTP client on a thread while the session is built: the TLS context
    it loads (tens of milliseconds) is C code that lets the build go on meanwhile. Not a
    daemon, as `preload_http_soon`'s: an exit meanwhile waits for it rather than finalizing
    the interpreter under a thread loading the trust store."""
    warm = getattr(model, "warm", None)
    if callable(warm):
        threading.Thread(target=warm, name="model-warm").start()


def idle_limits(env: Mapping[str, str], settings: Settings) -> IdleLimits | None:
    """`TETHER_MODEL_IDLE_TIMEOUT_MS` or the `tether.modelIdleTimeoutMs` setting: how long a
    model endpoint may send nothing before the attempt is given up and retried. None: the
    endpoint's default (`tether.models.idle`)."""
    value: object = env.get(IDLE_TIMEOUT_ENV)
    where = IDLE_TIMEOUT_ENV
    if value is None:
        block = settings.data.get("tether")
        value = block.get("modelIdleTimeoutMs") if isinstance(block, dict) else None
        where = f"the {IDLE_TIMEOUT_SETTING} setting"
    if value is None:
        return None
    try:
        milliseconds = float(value)  # pyright: ignore[reportArgumentType]
    except (TypeError, ValueError):
        milliseconds = 0.0
    if isinstance(value, bool) or not milliseconds > 0 or milliseconds == float("inf"):
        raise ConfigError(f"{where} must be a positive number of milliseconds, not {value!r}")
    return IdleLimits(milliseconds / 1000)


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    """`TETHER_RETRY_DELAY_MS` sets the first backoff delay (tests make it tiny)."""
    delay = env.get("TETHER_RETRY_DELAY_MS")
    if delay is None:
        return RetryPolicy()
    try:
        return RetryPolicy(base_delay_s=max(0.0, float(delay) / 1000))
    except ValueError:
        raise ConfigError(f"TETHER_RETRY_DELAY_MS must be a number, not {delay!r}") from None
