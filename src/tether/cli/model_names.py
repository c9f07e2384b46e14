"""The names a session's reports give its models (the SDK's `init` line, `modelUsage`,
`get_context_usage`), as Claude Code gives them: a model the user opted in to 1M for keeps
its `[1m]` (`claude-sonnet-4-6[1m]`), though requests carry the id alone. Kept apart from
the agent, which knows only the id it sends; a model switch names the model it switches to."""

from __future__ import annotations

from tether.models.resolve import ResolvedModel


class ModelNames:
    """Each model id the session has used, with the name reports give it."""

    def __init__(self, resolved: ResolvedModel) -> None:
        self._shown = {resolved.model_id: resolved.shown_id}

    def switched(self, resolved: ResolvedModel) -> None:
        """The session now runs on `resolved`: its id is reported by its name from now on."""
        self._shown[resolved.model_id] = resolved.shown_id

    def named(self) -> dict[str, str]:
        """Each id used so far, with its name."""
        return dict(self._shown)

    def shown(self, model_id: str) -> str:
        """The name reports give `model_id`: Claude Code's, else the id itself."""
        return self._shown.get(model_id, model_id)
