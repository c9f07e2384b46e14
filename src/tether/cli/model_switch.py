"""Switching the session's model: on request (the `SetModel` op), and with `--fallback-model`
when the model is overloaded (or unknown to the endpoint) before it has said anything, for good,
the call made again on the fallback model."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from tether.cli.model_names import ModelNames
from tether.config.settings import Settings
from tether.core.boundary import without_thinking
from tether.core.compact_point import compact_point, percent_override
from tether.core.loop import Agent
from tether.models.base import Model, ModelEvent, ModelRequest
from tether.models.catalogue import cost_usd, model_info
from tether.models.idle import IdleLimits
from tether.models.output_cap import output_limit
from tether.models.resolve import build_model
from tether.protocol import ConfigError, ModelError, Usage
from tether.slotted import replaced

if TYPE_CHECKING:
    from tether.models.resolve import ResolvedModel

Resolver = Callable[[str | None, Mapping[str, str], Settings], "ResolvedModel"]

FALLBACK_STATUSES = frozenset({404, 529})
"""Not found (the model is not served there) and overloaded, as Claude Code falls back."""


OVERLOADS_BEFORE_FALLBACK = 3
"""Overloaded answers in a row before the fallback model takes over: the first two are
retried (as Claude Code does), in case the overload passes."""


class FallbackModel:
    """The session's model, with a way out: `switch` points the session at the fallback model
    and returns it with its id."""

    def __init__(self, primary: Model, switch: Callable[[], tuple[Model, str]]) -> None:
        self.primary = primary
        self._switch = switch
        self._overloads = 0
        self._fallback: tuple[Model, str] | None = None
        """The fallback once it took over: every later attempt goes to it (a retry of the call
        that switched too), so the model reported as the answer's is the one that gave it."""
        self.watchers: list[Callable[[str, str], None]] = []
        """Told (original model, fallback model) when the fallback takes over."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if self._fallback is not None:
            model, model_id = self._fallback
            async for event in model.stream(replace(request, model=model_id)):
                yield event
            return
        started = False
        try:
            async for event in self.primary.stream(request):
                started = True
                yield event
            self._overloads = 0
            return
        except ModelError as e:
            if started or e.status not in FALLBACK_STATUSES:
                raise
            if e.status == 529:
                self._overloads += 1
                if self._overloads < OVERLOADS_BEFORE_FALLBACK:
                    raise  # the retry layer tries the model again
        model, model_id = self._fallback = self._switch()
        for watch in self.watchers:
            watch(request.model, model_id)
        # The call made again, without the thinking the session's model signed (refused by
        # another: 400 invalid signature); the history drops it as the answer comes.
        if model_id != request.model:
            messages = tuple(without_thinking(m) for m in request.messages)
            request = replace(request, messages=messages)
        async for event in model.stream(replace(request, model=model_id)):
            yield event

    async def aclose(self) -> None:
        close = getattr(self.primary, "aclose", None)
        if close is not None:
            await close()


def model_switcher(
    names: ModelNames,
    agent: Agent,
    default: str | None,
    env: Mapping[str, str],
    settings: Settings,
    resolve: Resolver,
    idle: IdleLimits | None = None,
    max_tokens_cap: int | None = None,
) -> ModelSwitcher:
    """Points `agent` at another model (the `SetModel` op); None goes back to the default.
    Everything that depends on the model follows it: its price, its output budget (capped by
    `max_tokens_cap`, the user's `maxOutputTokens`) and the context window compaction and
    the reports work with."""
    return ModelSwitcher(names, agent, default, env, settings, resolve, idle, max_tokens_cap)


class ModelSwitcher:
    """See `model_switcher`."""

    def __init__(
        self,
        names: ModelNames,
        agent: Agent,
        default: str | None,
        env: Mapping[str, str],
        settings: Settings,
        resolve: Resolver,
        idle: IdleLimits | None,
        max_tokens_cap: int | None,
    ) -> None:
        self._names = names
        self._agent = agent
        self._default = default
        self._env = env
        self._settings = settings
        self._resolve = resolve
        self._idle = idle
        self._max_tokens_cap = max_tokens_cap
        self._provider: str | None = None
        """The provider of the model in use, once switched (before: the default's)."""

    def __call__(self, spec: str | None) -> None:
        resolved = self._resolve(spec or self._default, self._env, self._settings)
        agent, idle = self._agent, self._idle
        agent.model = for_plan_mode(build_model(resolved, idle=idle), resolved, agent, idle)
        agent.model_id = resolved.model_id
        self._names.switched(resolved)
        agent.price = lambda u: cost_usd(resolved.info, u)
        agent.max_tokens = output_limit(self._max_tokens_cap, resolved.info)
        if agent.compaction is not None:
            window = resolved.info.context_window
            point = compact_point(window, agent.max_tokens, percent_override(self._env))
            policy = replaced(agent.compaction.policy, window=window, trigger_tokens=point)
            agent.compaction = replaced(agent.compaction, policy=policy)
        self._provider = resolved.provider.name

    def any_name(self, spec: str) -> None:
        """A client's `set_model`, as Claude Code takes it: a bare name tether cannot place
        goes to the endpoint of the model in use, which is the judge of it (Claude Code sends
        any name to its API). A name refused for what it is (not printable text) stays
        refused."""
        try:
            self(spec)
        except ConfigError as unknown:
            if "/" in spec:
                raise
            provider = self._provider
            if provider is None:
                provider = self._resolve(self._default, self._env, self._settings).provider.name
            try:
                self(f"{provider}/{spec}")
            except ConfigError:
                raise unknown from None


class PlanModeModel:
    """`opusplan`: requests made in plan mode go to the plan model (Opus), the others to the
    session's model (Sonnet), on the same endpoint, as Claude Code's alias does."""

    def __init__(self, work: Model, plan: Model, plan_model_id: str, mode: Callable[[], str]):
        self.work = work
        self.plan = plan
        self.plan_model_id = plan_model_id
        self.mode = mode

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if self.mode() == "plan":
            return self.plan.stream(replace(request, model=self.plan_model_id))
        return self.work.stream(request)

    def warm(self) -> None:
        warm = getattr(self.work, "warm", None)
        if callable(warm):
            warm()

    async def aclose(self) -> None:
        for model in (self.work, self.plan):
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()


def for_plan_mode(
    model: Model, resolved: ResolvedModel, agent: Agent, idle: IdleLimits | None = None
) -> Model:
    """`model`, with the plan model answering in plan mode when `resolved` names one."""
    plan_id = resolved.plan_model_id
    agent.route = None
    if plan_id is None:
        return model
    window = resolved.info.context_window
    info = replaced(model_info(plan_id, resolved.provider), context_window=window)
    plan = build_model(
        replaced(resolved, model_id=plan_id, info=info, plan_model_id=None), idle=idle
    )
    gate = agent.gate

    def mode() -> str:
        return gate.permissions.mode if gate else "default"

    # The plan model's replies are its own: recorded, judged for thinking, charged as its.
    def plan_price(usage: Usage) -> float:
        return cost_usd(info, usage)

    agent.route = lambda: (plan_id, plan_price) if mode() == "plan" else None
    return PlanModeModel(model, plan, plan_id, mode)


@contextlib.asynccontextmanager
async def model_for_turn(agent: Agent, switch: Callable[[str | None], None], spec: str):
    """`agent` on the model `spec` names while the block runs (a custom command's `model:`),
    then on its own model again, as it was; the borrowed model's connections are closed."""
    saved = (agent.model, agent.model_id, agent.price, agent.max_tokens, agent.compaction)
    switch(spec)
    try:
        yield
    finally:
        borrowed = agent.model
        agent.model, agent.model_id, agent.price, agent.max_tokens, agent.compaction = saved
        close = getattr(borrowed, "aclose", None)
        if close is not None:
            await close()


def with_fallback(agent: Agent, switch: Callable[[str | None], None], fallback: str) -> Model:
    def to_fallback() -> tuple[Model, str]:
        switch(fallback)
        return agent.model, agent.model_id

    return FallbackModel(agent.model, to_fallback)
