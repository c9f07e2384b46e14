"""The task tools for a session that belongs to a team (see `tether.teams.board.tools_wanted`):
its board, and the tools over it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tether.config.settings import Settings
from tether.teams.board import OWNER_ENV, TaskBoard, team_choice, tools_wanted
from tether.teams.tools import task_tools
from tether.tools.base import Tool


def session_task_board(
    settings: Settings, env: Mapping[str, str], *, workspace: Path, session_id: str
) -> TaskBoard | None:
    """The session's board, or None when it offers no task tools. Its owner name is
    `TETHER_TASK_OWNER`, else the session's (`session-` and the id's first 8 characters)."""
    if not tools_wanted(settings.data, env):
        return None
    owner = env.get(OWNER_ENV) or f"session-{session_id[:8]}"
    return TaskBoard(team_choice(settings.data, env), project=workspace, owner=owner)


def board_tools(board: TaskBoard | None) -> list[Tool]:
    return task_tools(board) if board is not None else []
