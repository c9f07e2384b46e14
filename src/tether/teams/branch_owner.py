"""Which task a task branch belongs to, written down when the branch is made: task ids are
only unique on one board, and a new board (another store, a recreated task file) gives out
`1` again. The owner is kept in the repository's git config (`branch.<branch>.tetherTask`,
which `git branch -D` removes with the branch); a run continues a branch only when it belongs
to the same task, and otherwise leaves it untouched and starts a branch of its own."""

from __future__ import annotations

import time
from pathlib import Path

from tether.teams.git import run_git

_KEY = "tetherTask"


def task_owner(name: str, created_at: float) -> str:
    """The owner recorded on a task's branch: its name (`7`, `docs/7`) and when the task was
    created on its board, which tells it from another board's task of the same id."""
    return f"{name}@{created_at:.6f}"


def branch_owner(repo: Path, branch: str) -> str | None:
    """The owner recorded on `branch`; None when none was (made by an earlier version, or by
    hand)."""
    done = run_git(repo, "config", "--get", f"branch.{branch}.{_KEY}", check=False)
    return done.stdout.strip() or None if done.returncode == 0 else None


def record_owner(repo: Path, branch: str, owner: str) -> None:
    """Write the owner (before the branch is made, so that a failure leaves nothing half
    made). Git locks its config file for each write and gives up at once when another
    process holds it (a worker of another team making its branch): tried again then."""
    for _ in range(_TRIES - 1):
        done = run_git(repo, "config", f"branch.{branch}.{_KEY}", owner, check=False)
        if done.returncode == 0:
            return
        if "lock" not in done.stderr:
            break
        time.sleep(0.05)
    run_git(repo, "config", f"branch.{branch}.{_KEY}", owner)


_TRIES = 100
