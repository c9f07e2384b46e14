"""The sessions a worker runs its tasks in: built as a headless run's are (`tether.cli.setup`),
in the project or in the task's worktree, and the project's hooks for the worktrees."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tether.cli.setup import RunOptions, build
from tether.cli.workspace_review import Ownership, restrict_settings
from tether.config.settings import load_settings, settings_files, tether_home
from tether.config.trust import workspace_trust
from tether.core.session import Session
from tether.hooks import HookRunner
from tether.hooks.config import parse_hooks
from tether.store.task_records import Task


@dataclass
class WorkerSessions:
    project: Path
    model: str | None
    env: Mapping[str, str]
    """The worker's environment: its team, store and owner name, which a task's session
    (and its task tools) then belong to."""

    def make(self, cwd: Path, task: Task) -> Session:
        """A fresh session for `task` in `cwd`. A task worktree lies inside the project, so
        the project's trust answer covers it (trust is inherited by directories below)."""
        return build(RunOptions(cwd=cwd, model=self.model, env=self.env)).session

    def project_hooks(self) -> HookRunner | None:
        """The project's hooks (its own only when the workspace is trusted), for the
        WorktreeCreate and WorktreeRemove events a worker's worktrees fire."""
        home, user_home = tether_home(self.env), Path(self.env.get("HOME") or Path.home())
        settings = load_settings(settings_files(self.project, home=home, user_home=user_home))
        trust = workspace_trust(self.project, tether_home=home, user_home=user_home, env=self.env)
        if not trust.trusted:
            settings = restrict_settings(settings, Ownership(self.project, user_home, home))
        specs = parse_hooks(settings.layers)
        if not specs:
            return None
        return HookRunner(
            specs,
            session_id=f"worker-{os.getpid()}",
            transcript_path="",
            cwd=self.project,
            project_dir=self.project,
            permission_mode=lambda: "default",
            env=self.env,
        )
