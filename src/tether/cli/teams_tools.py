"""The task tools for a session that belongs to a team (see
`tether.teams.membership.tools_wanted`): its board, and the tools over it. The board and the
tools are imported only for such a session."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tether.config.settings import Settings
from tether.teams.membership import tools_wanted
from tether.tools.base import Tool

if TYPE_CHECKING:
    from tether.teams.board import TaskBoard


def session_task_board(
    settings: Settings, env: Mapping[str, str], *, workspace: Path, session_id: str
) -> TaskBoard | None:
    """The session's board, or None when it offers no task tools. Its owner name is
    `TETHER_TASK_OWNER`, else the session's (`session-` and the id's first 8 characters); a
    worker lends it the claim on the session's task (`TETHER_TASK_CLAIM`)."""
    if not tools_wanted(settings.data, env):
        return None
    from tether.teams.board import OWNER_ENV, TaskBoard, lent_claims, team_choice

    owner = env.get(OWNER_ENV) or f"session-{session_id[:8]}"
    choice = team_choice(settings.data, env)
    return TaskBoard(choice, project=workspace, owner=owner, lent=lent_claims(env))


def board_tools(board: TaskBoard | None) -> list[Tool]:
    if board is None:
        return []
    from tether.teams.tools import task_tools

    return task_tools(board)
