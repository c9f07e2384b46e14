"""The session's model from the flag, the environment and the settings, and the limits put on
its calls there: output cap, idle timeout, retry delay."""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Mapping

from tether.config.numbers import env_number
from tether.config.settings import Settings
from tether.core.loop import Agent
from tether.core.model_call import RetryPolicy
from tether.models.base import Model
from tether.models.idle import IDLE_TIMEOUT_ENV, IdleLimits
from tether.models.resolve import ResolvedModel, provider_from_settings, resolve_model
from tether.slotted import replaced


def resolve(flag: str | None, env: Mapping[str, str], settings: Settings) -> ResolvedModel:
    """--model, then TETHER_MODEL, then Claude Code's ANTHROPIC_MODEL, then the settings'
    `model`, then the default."""
    spec = flag or env.get("TETHER_MODEL") or env.get("ANTHROPIC_MODEL", "").strip() or None
    spec = spec or settings.model
    window = env_number(env, "TETHER_CONTEXT_WINDOW")
    context_window = int(window) if window is not None else settings.context_window
    extra = {
        name: provider_from_settings(name, value) for name, value in settings.providers.items()
    }
    return resolve_model(spec, env, extra_providers=extra, context_window=context_window)


def max_output_tokens(env: Mapping[str, str], settings: Settings) -> int | None:
    """`TETHER_MAX_OUTPUT_TOKENS` (or Claude Code's `CLAUDE_CODE_MAX_OUTPUT_TOKENS`) or the
    `maxOutputTokens` setting: a cap on each reply, for local servers whose context is smaller
    than the catalogue's default output budget."""
    value = env_number(env, "TETHER_MAX_OUTPUT_TOKENS")
    if value is None:
        value = claude_code_output_cap(env)
    return int(value) if value is not None else settings.max_output_tokens


CLAUDE_CODE_CAP_ENV = "CLAUDE_CODE_MAX_OUTPUT_TOKENS"


def claude_code_output_cap(env: Mapping[str, str]) -> int | None:
    """Claude Code's `CLAUDE_CODE_MAX_OUTPUT_TOKENS`, read as Claude Code reads it: a leading
    whole number (`40000`, `40000.5`); a value that is none, or not above 0, is ignored (the
    model's default then) with one warning line on stderr, as an SDK program whose
    environment holds a stray value runs on Claude Code. Held to each model's most where
    used (`tether.models.output_cap`)."""
    text = env.get(CLAUDE_CODE_CAP_ENV, "").strip()
    if not text:
        return None
    digits = re.match(r"[+-]?\d+", text)
    value = int(digits.group()) if digits is not None else 0
    if value <= 0:
        print(
            f"tether: {CLAUDE_CODE_CAP_ENV}={text!r} is not a number of tokens above 0: "
            "ignored, the model's default output cap is used",
            file=sys.stderr,
            flush=True,
        )
        return None
    return value


def session_thinking(
    given: int | None, env: Mapping[str, str], settings: Settings, cap: int | None = None
) -> int:
    """The session's thinking budget (0: none), as Claude Code decides it: the flags' when
    they give one, else Claude Code's `MAX_THINKING_TOKENS`, else none when the setting
    `alwaysThinkingEnabled` is false, else Claude Code's default (thinking on): all the
    reply's room but a token, so a user's output `cap` above the default raises it (40000:
    39999; each request holds it below its own output cap)."""
    from tether.models.effort import DEFAULT_THINKING_TOKENS

    if given is not None:
        return given
    tokens = env_number(env, "MAX_THINKING_TOKENS")
    if tokens is not None:
        return int(tokens)
    if settings.data.get("alwaysThinkingEnabled") is False:
        return 0
    return max(DEFAULT_THINKING_TOKENS, cap - 1) if cap is not None else DEFAULT_THINKING_TOKENS


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
    value: object = env_number(env, IDLE_TIMEOUT_ENV)
    if value is None:  # the setting's range was checked as its file was read
        block = settings.data.get("tether")
        value = block.get("modelIdleTimeoutMs") if isinstance(block, dict) else None
    if not isinstance(value, int | float):
        return None
    return IdleLimits(value / 1000)


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    """`TETHER_RETRY_DELAY_MS` sets the first backoff delay (tests make it tiny); Claude Code's
    `CLAUDE_CODE_MAX_RETRIES` the retries after a failed request (unset: tether's default),
    an unreachable endpoint's included."""
    policy = RetryPolicy()
    delay = env_number(env, "TETHER_RETRY_DELAY_MS")
    if delay is not None:
        policy = replaced(policy, base_delay_s=delay / 1000)
    retries = env_number(env, "CLAUDE_CODE_MAX_RETRIES")
    if retries is not None:
        attempts = int(retries) + 1
        policy = replaced(policy, max_attempts=attempts, max_unreachable_attempts=attempts)
    return policy


def effort_in_force(agent: Agent, resolved: ResolvedModel) -> str | None:
    """The effort level the session's model works at now (the model switched to since,
    `set_model` or the fallback, on the session's provider): the level asked for after any
    downgrade for the model; unasked, the model's default in Claude Code, else the Messages
    API's (`API_DEFAULT_EFFORT`), on a model that takes a level, as Claude Code's hooks are
    told one whenever the model takes it."""
    from tether.models.catalogue import model_info
    from tether.models.effort import API_DEFAULT_EFFORT, effort_sent

    info = model_info(agent.model_id, resolved.provider)
    wire = resolved.provider.wire
    unasked = (info.default_effort or API_DEFAULT_EFFORT) if wire == "anthropic" else None
    asked = agent.effort or unasked
    return effort_sent(asked, info.efforts, wire, info.thinking, agent.thinking_budget)
