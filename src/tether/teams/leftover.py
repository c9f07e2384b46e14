"""Work an earlier attempt of a task left on its branch (`tether/<task>`: a run interrupted,
failed or killed in a worktree), found before a run that would not use a worktree: the worker
continues it there rather than redo the task in the main tree and leave the branch unmerged."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tether.teams.branch_owner import branch_owner
from tether.teams.git import GitError
from tether.teams.records import (
    WorktreeError,
    attempt_branch,
    branch_task,
    project_repository,
    task_branches,
)
from tether.teams.worktrees import unmerged_count


@dataclass(frozen=True)
class LeftWork:
    branch: str
    commits: int

    def said(self, task_id: str) -> str:
        return (
            f"{self.branch} holds {self.commits} unmerged commit(s) of an earlier attempt of "
            f"task #{task_id}: this attempt continues them in a worktree"
        )


def left_work(project: Path, name: str, owner: str) -> LeftWork | None:
    """The latest attempt branch of the task `name` (`task_name`) when it holds unmerged work
    this task's run made (`owner`: `task_owner`); None otherwise, and in a project that is no
    repository of its own (no worktree could hold it)."""
    try:
        repo = project_repository(project)
        attempts = [a for t, a in filter(None, map(branch_task, task_branches(repo))) if t == name]
        if not attempts:
            return None
        latest = attempt_branch(name, max(attempts))
        if branch_owner(repo, latest) != owner:
            return None  # another task's of the same id, or of no recorded one: not ours
        commits = unmerged_count(repo, latest)
    except (GitError, WorktreeError):
        return None
    return LeftWork(latest, commits) if commits else None
