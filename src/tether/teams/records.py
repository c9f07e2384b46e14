"""What git knows about a repository's worktrees and tether's task branches, read fresh each
time (git is the only record: nothing to drift out of date when a run is killed)."""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path

from tether.teams.git import git_out, run_git

BRANCH_PREFIX = "tether/"
WORKTREES_DIR = Path(".tether") / "worktrees"
_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
ATTEMPT = re.compile(r"(?P<task>[A-Za-z0-9][A-Za-z0-9_-]*)(?:\.(?P<attempt>[0-9]+))?")
"""A task branch's name after `tether/`: the task id, then `.N` for its Nth attempt when an
earlier attempt's branch still holds unmerged work (a task id has no dot)."""
LOCK_REASON = re.compile(r"tether task \S+: pid (?P<pid>[0-9]+) on (?P<host>\S+)")


class WorktreeError(Exception):
    """Something the user must act on: the message says what happened and what to do."""


def check_task_id(task_id: str) -> str:
    """`task_id` if it can name a directory and a branch as is; `WorktreeError` otherwise."""
    if not _TASK_ID.fullmatch(task_id):
        raise WorktreeError(
            f"task id {task_id!r} cannot name a worktree: use letters, digits, '-' and '_' "
            "(at most 100, starting with a letter or digit)"
        )
    return task_id


def branch_task(branch: str) -> tuple[str, int] | None:
    """(task id, attempt) of a task branch name (`tether/7.2` -> ("7", 2)); None for others."""
    if not branch.startswith(BRANCH_PREFIX):
        return None
    found = ATTEMPT.fullmatch(branch.removeprefix(BRANCH_PREFIX))
    if found is None:
        return None
    return found["task"], int(found["attempt"] or 1)


def attempt_branch(task_id: str, attempt: int) -> str:
    return f"{BRANCH_PREFIX}{task_id}" + (f".{attempt}" if attempt > 1 else "")


def lock_reason(task_id: str) -> str:
    """What tether writes as the lock reason of a task's worktree: which process holds it."""
    return f"tether task {task_id}: pid {os.getpid()} on {socket.gethostname()}"


@dataclass(frozen=True)
class WorktreeRecord:
    """One entry of `git worktree list --porcelain`."""

    path: Path
    head: str | None
    branch: str | None
    """Without `refs/heads/`; None when detached (or bare)."""
    locked: str | None
    """The lock reason ("" when locked without one); None when not locked."""
    prunable: bool

    def holder(self) -> tuple[int, str] | None:
        """(pid, host) of the tether process that locked it, if tether did."""
        found = LOCK_REASON.fullmatch(self.locked or "")
        return (int(found["pid"]), found["host"]) if found else None

    def held_by_live_process(self) -> bool:
        """Locked by a tether process that still runs (or one on another host, which cannot be
        checked from here, so is taken as running)."""
        holder = self.holder()
        if holder is None:
            return False
        pid, host = holder
        return host != socket.gethostname() or _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def worktree_records(repo: Path) -> list[WorktreeRecord]:
    """Every worktree git has registered for `repo`, the main one first."""
    records: list[WorktreeRecord] = []
    for block in git_out(repo, "worktree", "list", "--porcelain", "-z").split("\0\0"):
        fields: dict[str, str] = {}
        for line in block.split("\0"):
            key, _, value = line.partition(" ")
            if key:
                fields[key] = value
        if "worktree" not in fields:
            continue
        branch = fields.get("branch")
        records.append(
            WorktreeRecord(
                path=Path(fields["worktree"]),
                head=fields.get("HEAD"),
                branch=branch.removeprefix("refs/heads/") if branch else None,
                locked=fields.get("locked"),
                prunable="prunable" in fields,
            )
        )
    return records


def main_worktree(start: Path) -> Path:
    """The main worktree of the repository holding `start` (from a task's worktree too)."""
    if not start.is_dir():
        raise WorktreeError(f"{start} is not a directory")
    probe = run_git(
        start, "rev-parse", "--is-bare-repository", "--is-inside-work-tree", check=False
    )
    if probe.stdout.split() != ["false", "true"]:
        raise WorktreeError(f"{start} is not inside a git work tree: task worktrees need one")
    return worktree_records(start)[0].path


def task_branches(repo: Path) -> list[str]:
    """Every local `tether/...` branch that names a task attempt, sorted."""
    names = git_out(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/tether/")
    return sorted(n for n in names.splitlines() if branch_task(n) is not None)
