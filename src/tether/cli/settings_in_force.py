"""The settings a command that runs no session of its own works under (`tether worker`'s own
steps, `tether tasks`): the project's files as a session there reads them, a workspace's own
files restricted until it is trusted, and the environment with their `env` filled in."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tether.cli.ownership import Ownership
from tether.cli.untrusted_settings import restrict_settings
from tether.config.settings import Settings, load_settings, settings_files, tether_home
from tether.config.trust import workspace_trust


def settings_in_force(
    project: Path,
    env: Mapping[str, str],
    *,
    trust_flag: bool = False,
    start: Path | None = None,
) -> tuple[Settings, dict[str, str]]:
    """`project`'s settings (read from `start` below it, when given) and the environment
    they make (what `env` sets wins); untrusted, the workspace's own files keep only what
    restricts (`restrict_settings`): their webhooks and hooks are left out."""
    home = tether_home(env)
    user_home = Path(env.get("HOME") or Path.home())
    settings = load_settings(settings_files(project, home=home, user_home=user_home, start=start))
    trust = workspace_trust(
        project, tether_home=home, user_home=user_home, env=env, flag=trust_flag
    )
    if not trust.trusted:
        settings = restrict_settings(settings, Ownership(project, user_home, home))
    return settings, {**settings.env, **env}
