"""What would stop a teammate's process from running its member at all, found before it
claims the member (`tether team run`): its agent definition, its model, its workspace's
settings. Apart from the session it runs (`teammate_run`), and importing little, so that the
claim `team up` waits for comes as soon as these are checked, the session's imports after it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tether.cli.run_options import RunOptions
from tether.cli.teams_tools import TEAMMATE_ENV
from tether.protocol import ConfigError
from tether.store.mailbox import Member

if TYPE_CHECKING:  # `tether.agents` imports the session's machinery: only with an agent named
    from tether.agents.definitions import AgentDefinition


def member_agent(project: Path, member: Member) -> AgentDefinition | None:
    """The member's agent definition (None: general-purpose, none named); ConfigError when
    it names one that does not exist (its file removed since)."""
    if not member.agent:
        return None
    from tether.agents.discovery import discover_agents

    catalog = discover_agents(project, home=Path.home())
    agent = catalog.get(member.agent)
    if agent is None:
        raise ConfigError(f"no agent named {member.agent!r} (agents: {', '.join(catalog.names())})")
    return agent


def check_member_model(project: Path, member: Member, *, trust_workspace: bool) -> None:
    """ConfigError when the member's model cannot be resolved (an unknown name) or its
    workspace's settings are broken: found before its claim, so that `team up`, which waits
    for the claim alone, says so (the log's end) and fails."""
    from tether.cli.model_options import resolve
    from tether.cli.session_place import find_place

    options = RunOptions(
        cwd=Path(member.cwd) if member.cwd else project,
        model=member.model,
        env={**os.environ, TEAMMATE_ENV: member.name},
        trust_workspace=trust_workspace,
    )
    place = find_place(options)
    resolve(member.model, place.env, place.settings)
