"""The Task tool for a session: its subagent catalogue, where their transcripts go, and the
models their definitions ask for. (Their spend reaches the session through the calling agent's
`side_spend`.)"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from tether.agents import AgentCatalog, SubagentRunner
from tether.config.settings import Settings
from tether.core.recording import SessionRecorder
from tether.models.base import Model
from tether.models.catalogue import FAMILIES, ModelInfo, cost_usd
from tether.models.idle import IdleLimits
from tether.models.output_cap import output_limit
from tether.models.resolve import ResolvedModel, build_model
from tether.protocol import ConfigError, HarnessError, Usage
from tether.store import SessionWriter, subagent_transcript_path


class SubagentModels:
    """Models that subagent definitions ask for, built once each and closed with the session."""

    def __init__(
        self,
        parent: ResolvedModel,
        parent_model: Model,
        resolve: Callable[[str], ResolvedModel],
        *,
        idle: IdleLimits | None = None,
        max_tokens_cap: int | None = None,
    ) -> None:
        self._parent, self._parent_model, self._resolve = parent, parent_model, resolve
        self._idle, self.max_tokens_cap = idle, max_tokens_cap
        """The user's output cap, held to each model's most as its calls are made."""
        self._built: dict[str, tuple[Model, str]] = {}
        self._prices: dict[str, ModelInfo] = {parent.model_id: parent.info}

    def __call__(self, spec: str) -> tuple[Model, str]:
        if spec in FAMILIES:  # with another provider than Anthropic: the session's own model
            if self._parent.provider.name != "anthropic":
                return self._parent_model, self._parent.model_id
            spec = FAMILIES[spec]
        if spec in (self._parent.spec, self._parent.model_id):
            return self._parent_model, self._parent.model_id
        if spec not in self._built:
            try:
                resolved = self._resolve(spec)
            except ConfigError as e:
                raise HarnessError(str(e)) from None
            self._built[spec] = (build_model(resolved, idle=self._idle), resolved.model_id)
            self._prices[resolved.model_id] = resolved.info
        return self._built[spec]

    def price_for(self, model_id: str) -> Callable[[Usage], float]:
        """What a call to `model_id` (one these models are) costs, at its own prices."""
        info = self._prices[model_id]
        return lambda usage: cost_usd(info, usage)

    def limits_for(self, model_id: str) -> tuple[int, int]:
        """The window and output cap of a call to `model_id` (one these models are): its own,
        as the session's would be on it (the user's output cap, else the model's)."""
        info = self._prices[model_id]
        return info.context_window, output_limit(self.max_tokens_cap, info)

    async def aclose(self) -> None:
        for model, _ in self._built.values():
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()


def subagent_runner(
    catalog: AgentCatalog,
    settings: Settings,
    *,
    transcript: Path,
    workspace: Path,
    models: SubagentModels,
    instructions: str,
) -> SubagentRunner:
    """`tether.subagents.maxDepth` and `.maxConcurrent` in settings bound the nesting and the
    subagents running at once."""
    limits = _limits(settings.data)

    def transcript_for(agent_id: str) -> SessionRecorder:
        path = subagent_transcript_path(transcript, agent_id)
        return SessionRecorder(lambda: SessionWriter.create(path.parent, path.stem, cwd=workspace))

    return SubagentRunner(
        catalog,
        max_depth=limits.get("maxDepth", 2),
        max_concurrent=limits.get("maxConcurrent", 4),
        transcript_for=transcript_for,
        transcript_path=lambda agent_id: subagent_transcript_path(transcript, agent_id),
        resolve_model=models,
        price_for=models.price_for,
        limits_for=models.limits_for,
        instructions=instructions,
    )


def _limits(data: Mapping[str, object]) -> dict[str, int]:
    tether = data.get("tether")
    section = tether.get("subagents") if isinstance(tether, dict) else None
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ConfigError("tether.subagents must be an object with maxDepth and maxConcurrent")
    limits: dict[str, int] = {}
    for key, value in section.items():  # pyright: ignore[reportUnknownVariableType]
        if key not in ("maxDepth", "maxConcurrent"):
            raise ConfigError(f"tether.subagents.{key} is not a setting (maxDepth, maxConcurrent)")
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"tether.subagents.{key} must be a whole number of at least 1")
        limits[key] = value
    return limits
