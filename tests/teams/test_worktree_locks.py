"""The file lock each task's fenced steps run under goes with the task's worktree: no lock
files pile up under `.tether/worktrees/.locks`, and `clean` clears those a killed run left."""

from __future__ import annotations

from pathlib import Path

from tether.teams.lifecycle import task_worktree
from tether.teams.review import clean_worktrees
from tether.teams.takeover import guarded

from .conftest import write

LOCKS = Path(".tether/worktrees/.locks")


async def test_a_tasks_lock_file_goes_with_its_worktree(repo: Path) -> None:
    async with task_worktree(repo, "3") as run:
        write(run.worktree.path / "a.txt", "changed\n")
    async with task_worktree(repo, "4", team="docs"):
        pass
    assert not (repo / LOCKS / "3").exists()
    assert not (repo / LOCKS / "docs").exists()


def test_clean_removes_lock_files_of_tasks_without_a_worktree(repo: Path) -> None:
    with guarded(repo, "9"):  # as a run killed before it removed its worktree leaves it
        pass
    with guarded(repo, "docs/9"):
        pass
    assert (repo / LOCKS / "9").exists()
    clean_worktrees(repo)
    assert not (repo / LOCKS).exists()  # the lock files, then their emptied directories
