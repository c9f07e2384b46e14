"""The sessions a worker runs its tasks in: built as a headless run's are (`tether.cli.setup`),
in the project or in the task's worktree, and the project's hooks for the worktrees."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tether.cli.settings_in_force import settings_in_force
from tether.cli.setup import RunOptions, build
from tether.core.session import Session
from tether.hooks import HookRunner
from tether.hooks.config import parse_hooks
from tether.store.task_records import Task
from tether.teams.board import lent_value
from tether.teams.membership import CLAIM_ENV


@dataclass
class WorkerSessions:
    project: Path
    model: str | None
    env: Mapping[str, str]
    """The worker's environment: its team, store and owner name, which a task's session
    (and its task tools) then belong to."""
    trust_workspace: bool = False
    """`--trust-workspace`: run what the project's files declare, as -p does with it."""
    notify: Callable[[str], None] = lambda _: None
    """Told the sessions' start-up notices (an untrusted workspace's...), each once."""
    _told: set[str] = field(default_factory=set[str])

    def make(self, cwd: Path, task: Task) -> Session:
        """A fresh session for `task` in `cwd`. A task worktree lies inside the project, so
        the project's trust answer covers it (trust is inherited by directories below), and
        its settings are the project's own (the local files too, which the worktree lacks). The
        session's task tools get the worker's claim on `task`: the agent may complete or fail
        it (with TaskUpdate) as the worker would."""
        env = {**self.env, CLAIM_ENV: lent_value(task)}
        options = RunOptions(
            cwd=cwd,
            model=self.model,
            env=env,
            trust_workspace=self.trust_workspace,
            settings_from=None if _same(cwd, self.project) else self.project,
        )
        session = build(options).session
        for notice in session.startup_notices:
            if notice not in self._told:  # once per worker, not per task
                self._told.add(notice)
                self.notify(notice)
        return session

    def project_hooks(self) -> HookRunner | None:
        """The project's hooks (its own only when the workspace is trusted), for the
        WorktreeCreate and WorktreeRemove events a worker's worktrees fire."""
        settings, _ = settings_in_force(self.project, self.env, trust_flag=self.trust_workspace)
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


def _same(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()
