"""Fencing a task's worktree between the runs of its claims: the lease, not git's lock,
decides who works in it.

A run holds its worktree by a lock reason that names its claim (`lock_reason`). A newer claim
of the task (the store gave it out because the older one's lease ran out: its worker died, or
was paused) takes the worktree over in place: the work left in it is committed, and the lock
becomes the new run's. Before anything is committed, the commands the older run started are
stopped when its process is on this machine (found by the run records its sessions keep, see
`tether.tools.run_record`): a paused worker's commands would otherwise go on writing into the
worktree its successor now works in. The older run, should it wake, commits into the
worktree and removes it only while the lock is still its own. Both steps run under one
file lock per task (`guarded`), so a check and the step it allows cannot be split by a takeover.
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Generator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from tether.config.settings import tether_home
from tether.teams.git import identity_args, run_git
from tether.teams.records import WORKTREES_DIR, WorktreeError, WorktreeRecord, worktree_records
from tether.teams.worktree_lock import flock_by
from tether.tools.run_record import stop_commands_of

LOCKS_DIR = ".locks"
"""Under the worktrees directory: a file per task, `flock`ed around fenced steps."""

WAIT_S = 60.0
"""How long a fenced step waits for another holder's (a paused process may hold it)."""


class HeldWorktree(Protocol):
    @property
    def repo(self) -> Path: ...
    @property
    def path(self) -> Path: ...
    @property
    def lock(self) -> str: ...


@contextmanager
def guarded(repo: Path, name: str) -> Generator[None]:
    """Task `name`'s fenced section: one process at a time. The lock file goes with the
    task's worktree (`drop_lock_file`, inside the section): a process that locked a file
    since removed takes the one now at its path instead."""
    path = lock_path(repo, name)
    deadline = time.monotonic() + WAIT_S
    while True:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock(fd, path, name, deadline)
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, path):
            break
        os.close(fd)  # removed (its worktree went) while this process waited: again
    try:
        yield
    finally:
        os.close(fd)


def lock_path(repo: Path, name: str) -> Path:
    return repo / WORKTREES_DIR / LOCKS_DIR / name


def drop_lock_file(repo: Path, name: str) -> None:
    """Remove task `name`'s lock file, with its worktree (call inside `guarded`), and the
    team's directory of them once empty."""
    path = lock_path(repo, name)
    path.unlink(missing_ok=True)
    root = repo / WORKTREES_DIR / LOCKS_DIR
    with contextlib.suppress(OSError):  # not empty: other tasks' locks
        for parent in path.parents:
            if parent == root or root not in parent.parents:
                break
            parent.rmdir()


def _lock(fd: int, path: Path, name: str, deadline: float) -> None:
    if not flock_by(fd, deadline):
        raise WorktreeError(
            f"task {name}'s worktree stayed busy for {WAIT_S:g} s (another run "
            f"holds {path}, perhaps a paused process): try again once it ends"
        )


def _same_file(fd: int, path: Path) -> bool:
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)


def holds(worktree: HeldWorktree) -> bool:
    """Whether the worktree is still held by `worktree.lock` (call inside `guarded`)."""
    record = next((r for r in worktree_records(worktree.repo) if r.path == worktree.path), None)
    return record is not None and record.locked == worktree.lock


def take_over(repo: Path, lapsed: WorktreeRecord, lock: str, name: str) -> str | None:
    """Make the worktree of a lapsed claim this run's: the commands its holder left running
    stopped (when on this machine), its uncommitted work committed on its branch (nothing
    lost, and the earlier run's part told apart), then locked by `lock`. A note on what was
    stopped, for the user."""
    with guarded(repo, name):
        now = next((r for r in worktree_records(repo) if r.path == lapsed.path), None)
        if now is None or now.locked != lapsed.locked:
            raise WorktreeError(
                f"task {name}'s worktree changed hands while this run took it over: try again"
            )
        note = _stop_holder_commands(lapsed, name)
        path = lapsed.path
        status = run_git(path, "status", "--porcelain", "--untracked-files=all").stdout
        if status.strip():
            run_git(path, "add", "--all")
            message = f"tether task {name}: work left by a run whose lease ran out"
            run_git(path, *identity_args(path), "commit", "--no-verify", "--quiet", "-m", message)
        run_git(repo, "worktree", "unlock", str(path))
        run_git(repo, "worktree", "lock", "--reason", lock, str(path))
        return note


def _stop_holder_commands(lapsed: WorktreeRecord, name: str) -> str | None:
    holder = lapsed.holder()
    if holder is None:
        return None
    pid, host = holder
    if host != socket.gethostname():
        return (
            f"task {name}'s earlier holder (pid {pid}) is on {host}: commands it may still "
            "run there cannot be stopped from here"
        )
    if pid == os.getpid():
        return None
    stopped = stop_commands_of(tether_home(os.environ), pid)
    if not stopped:
        return None
    return (
        f"stopped {stopped} process(es) that task {name}'s earlier holder (pid {pid}) had "
        "left running in its worktree"
    )


def drop_idle_locks(repo: Path) -> None:
    """Remove the lock files of tasks without a worktree (left by runs killed before they
    could remove theirs), each inside its own section: a run starting meanwhile keeps its."""
    root = repo / WORKTREES_DIR / LOCKS_DIR
    if not root.is_dir():
        return
    live = {r.path for r in worktree_records(repo)}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        name = path.relative_to(root).as_posix()
        if repo / WORKTREES_DIR / name in live:
            continue
        with guarded(repo, name):
            if not any(r.path == repo / WORKTREES_DIR / name for r in worktree_records(repo)):
                drop_lock_file(repo, name)
