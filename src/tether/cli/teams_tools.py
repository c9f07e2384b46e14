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
    from tether.core.session import Session
    from tether.teams.board import TaskBoard
    from tether.teams.lead import LeadTeams


def session_task_board(
    settings: Settings, env: Mapping[str, str], *, workspace: Path, session_id: str
) -> TaskBoard | None:
    """The session's board, or None when it offers no task tools. Its owner name is
    `TETHER_TASK_OWNER`, else the session's (`session-` and the id's first 8 characters); a
    worker lends it the claim on the session's task (`TETHER_TASK_CLAIM`)."""
    if not tools_wanted(settings.data, env):
        return None
    from tether.teams.board import TaskBoard, lease_from, lent_claims
    from tether.teams.membership import OWNER_ENV, team_choice

    owner = env.get(OWNER_ENV) or f"session-{session_id[:8]}"
    choice = team_choice(settings.data, env)
    lease = lease_from(env)
    return TaskBoard(choice, project=workspace, owner=owner, lease_s=lease, lent=lent_claims(env))


def board_tools(board: TaskBoard | None) -> list[Tool]:
    if board is None:
        return []
    from tether.teams.tools import task_tools

    return task_tools(board)


AGENT_TEAMS_ENV = "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"
"""Claude Code's switch for agent teams: a session with it set may lead a team."""
TEAMMATE_ENV = "TETHER_TEAMMATE"
"""Set in a teammate's environment (its member name): a teammate leads no team."""


def session_lead(
    settings: Settings, env: Mapping[str, str], *, workspace: Path
) -> LeadTeams | None:
    """The session's team-lead side, when agent teams are on and it is no teammate."""
    if env.get(AGENT_TEAMS_ENV, "") not in ("1", "true") or env.get(TEAMMATE_ENV):
        return None
    from tether.teams.lead import LeadTeams
    from tether.teams.membership import team_choice

    return LeadTeams(project=workspace, store_url=team_choice(settings.data, env).store_url)


def lead_session_tools(lead: LeadTeams | None) -> list[Tool]:
    if lead is None:
        return []
    from tether.teams.lead_tools import lead_tools
    from tether.teams.send_tool import send_message_tool

    return [*lead_tools(lead), send_message_tool(lambda: lead.link)]


TEAM_NOTE = "tether-team"
"""A lead's session file line naming the team it leads (`team`: null once deleted)."""


def attach_lead(lead: LeadTeams | None, session: Session, resumed: Path | None = None) -> None:
    """Messages to the lead go to `session` as steering; the team goes with the session. A
    session resumed from `resumed` leads again the team its file names."""
    if lead is None:
        return
    from tether.teams.letters import held_ids

    lead.steer = session.steer
    lead.session_id = session.session_id  # its messages' ids: this session's
    session.agent.waits.append(lead.awaited)  # polling for a teammate's reply is not a loop
    lead.held = lambda: held_ids(session.messages)
    lead.spend = lambda: session.cost_usd
    gate = session.agent.gate
    lead.mode = lambda: gate.permissions.mode if gate is not None else None
    recorder = session.recorder
    if recorder is not None:  # acknowledged once in the session file
        recorder.watchers.append(lambda _path, entry: lead.written(entry))
        lead.note = lambda fields: recorder.bookkeeping(TEAM_NOTE, **fields)
    session.on_close.append(lead.close)
    team = led_team(resumed) if resumed is not None else None
    if team is not None:
        from tether.store.task_records import StoreUnavailable

        try:
            said = lead.rejoin(team)
        except StoreUnavailable as e:
            said = f"team {team}, which this session led, cannot be reached: {e}"
        session.startup_notices.append(said)
        session.agent.inputs.append(lead.start_listening)


def led_team(path: Path) -> str | None:
    """The team a session file says its session leads (its newest `TEAM_NOTE`), if any."""
    from tether.cli.board_resume import newest_note

    note = newest_note(path, TEAM_NOTE)
    team = note.get("team") if note is not None else None
    return team if isinstance(team, str) else None


def attach_board(
    board: TaskBoard | None,
    session: Session,
    env: Mapping[str, str],
    resumed: Path | None,
    task: tuple[str, float] | None = None,
) -> None:
    """The task board goes with `session`: what its turns spend is counted on the task it
    works on, it closes with the session, and a session resumed from `resumed` takes back the
    claims its file names; a worker's task session resumed (`task`: its id and creation time)
    files what it does under that task."""
    if board is None:
        return
    from tether.cli.board_resume import attach_board_claims, attach_task_run
    from tether.teams.spend import attach_task_spend

    attach_task_spend(session, board)  # its spend written before the board closes
    session.on_close.append(board.close)
    attach_board_claims(session, board, env, resumed)
    if task is not None:
        attach_task_run(session, board, task)
