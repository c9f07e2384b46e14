"""Whether a session belongs to a team: asked by every session's build, so kept apart from the
board and the task store (their modules and models cost a start that has no team)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STORE_ENV = "TETHER_TEAM_STORE"
TEAM_ENV = "TETHER_TEAM"
ENABLE_ENV = "CLAUDE_CODE_ENABLE_TASKS"
"""Claude Code's switch for its task tools; tether reads it too."""


def tools_wanted(settings: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether a session offers the task tools: it belongs to a team (`TETHER_TEAM`, a store
    or a `teams` setting), or Claude Code's `CLAUDE_CODE_ENABLE_TASKS` asks for them."""
    enabled = env.get(ENABLE_ENV, "").lower() in ("1", "true", "yes")
    return enabled or bool(env.get(TEAM_ENV) or env.get(STORE_ENV) or settings.get("teams"))
