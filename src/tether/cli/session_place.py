"""Where a session runs and what it reads there: the project, its trust, the settings files
the setting sources admit (restricted when the workspace is not trusted), the environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from tether.cli.ownership import Ownership
from tether.cli.run_options import RunOptions
from tether.cli.setting_sources import SettingSources
from tether.cli.settings_values import usable_settings
from tether.cli.untrusted_settings import restrict_settings
from tether.config.project import project_root
from tether.config.settings import (
    Settings,
    load_settings,
    relocated,
    settings_files,
    tether_home,
    with_layer,
)
from tether.config.trust import Trust, workspace_trust
from tether.models.resolve import BETAS_ENV
from tether.protocol import ConfigError
from tether.sandbox import parse_sandbox_settings, probe_soon
from tether.slotted import Slotted

INLINE_SETTINGS = Path("--settings")
"""How settings given inline are named (in messages; rules in them are relative to the
workspace, as a file's would be to its folder)."""


class SessionPlace(Slotted):
    """The project a session works in and the settings it runs with."""

    __slots__ = (
        "env",
        "home",
        "owners",
        "settings",
        "settings_root",
        "sources",
        "start",
        "trust",
        "user_home",
        "workspace",
    )
    start: Final[Path]
    """The directory the session started in (Bash starts there)."""
    workspace: Final[Path]
    """The project: the repository holding `start` (`tether.config.project`)."""
    settings_root: Final[Path]
    """Whose settings, local files, memory and sessions these are: the workspace, or a task
    worktree's main workspace (`RunOptions.settings_from`)."""
    home: Final[Path]
    """tether's own home (`$TETHER_HOME`)."""
    user_home: Final[Path]
    trust: Final[Trust]
    owners: Final[Ownership]
    sources: Final[SettingSources]
    settings: Final[Settings]
    env: Final[dict[str, str]]
    """The settings' `env` filled in under the real environment (what the user typed wins)."""

    def __init__(
        self,
        start: Path,
        workspace: Path,
        settings_root: Path,
        home: Path,
        user_home: Path,
        trust: Trust,
        owners: Ownership,
        sources: SettingSources,
        settings: Settings,
        env: dict[str, str],
    ) -> None:
        self.start = start
        self.workspace = workspace
        self.settings_root = settings_root
        self.home = home
        self.user_home = user_home
        self.trust = trust
        self.owners = owners
        self.sources = sources
        self.settings = settings
        self.env = env


def find_place(opts: RunOptions) -> SessionPlace:
    """The project of `opts.cwd`, its trust decided from the real environment, and its
    settings read. Raises `ConfigError` for a workspace that is not a directory or broken
    settings."""
    env = dict(os.environ if opts.env is None else opts.env)
    if opts.betas:
        env[BETAS_ENV] = ",".join((env.get(BETAS_ENV, ""), *opts.betas))
    start = opts.cwd.expanduser().resolve()
    if not start.is_dir():
        raise ConfigError(f"workspace is not a directory: {start}")
    home = tether_home(env)
    user_home = Path(env.get("HOME") or Path.home())
    # The project is the repository holding `start` (`tether.config.project`): its settings,
    # instructions, memory, sessions and trust; the rules, sandbox and tools work in it.
    workspace = project_root(start, user_home=user_home)
    # From the real environment: a settings file's `env` must not trust its own workspace.
    trust = workspace_trust(
        workspace,
        tether_home=home,
        user_home=user_home,
        env=env,
        flag=opts.trust_workspace,
        sources=opts.setting_sources,
    )
    owners = Ownership(workspace, user_home, home)
    # Every kind of file below (settings, instructions, skills, agents, memory) is read only
    # from the sources asked for.
    sources = SettingSources.of(owners, opts.setting_sources)
    settings_root = opts.settings_from.resolve() if opts.settings_from else workspace
    settings = load_settings(
        settings_files(
            settings_root,
            home=home,
            explicit=opts.settings_path,
            admits=sources.admits,
            start=start if opts.settings_from is None else None,
        ),
        required=opts.settings_path,
    )
    if settings_root != workspace:
        settings = relocated(settings, settings_root, workspace)
    if not trust.trusted:
        settings = restrict_settings(settings, owners, explicit=opts.settings_path)
    settings = usable_settings(settings, required=opts.settings_path)
    if opts.settings_json is not None:
        # The user's choice, like a `--settings` file: applied whole, trusted or not.
        settings = with_layer(settings, INLINE_SETTINGS, opts.settings_json)
    _probe_sandbox_meanwhile(settings)
    return SessionPlace(
        start=start,
        workspace=workspace,
        settings_root=settings_root,
        home=home,
        user_home=user_home,
        trust=trust,
        owners=owners,
        sources=sources,
        settings=settings,
        # Settings' env fills in; the real environment (what the user typed) wins.
        env={**settings.env, **env},
    )


def _probe_sandbox_meanwhile(settings: Settings) -> None:
    """Start checking bubblewrap now, on a thread: its two short commands run while the rest
    of the session is built, instead of before the first request."""
    try:
        enabled = parse_sandbox_settings(settings.data).enabled
    except ConfigError:
        return  # reported where the sandbox is planned
    if enabled is not False:
        probe_soon()
