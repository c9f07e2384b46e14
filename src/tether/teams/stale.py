"""What killed runs left in the worktrees directory, cleared by the next pre-flight (or
`tether worktrees clean`): git's records of vanished worktrees pruned; a task worktree whose
holder no longer runs has the commands that holder left running stopped (its run records),
its changes committed on its branch, then goes; a directory git does not know is moved aside
when it holds anything."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tether.config.settings import tether_home
from tether.teams.git import git_out, identity_args, run_git
from tether.teams.records import WORKTREES_DIR, WorktreeRecord, worktree_records
from tether.teams.takeover import drop_lock_file, guarded
from tether.tools.run_record import reap_dead_runs

ORPHANS_DIR = ".orphaned"
"""Under the worktrees directory: directories git no longer knew, moved aside, not deleted."""


def clear_stale(repo: Path, *, own_task: str | None = None) -> list[str]:
    """Clear what killed runs left: git's records of worktrees whose directory is gone; task
    worktrees whose holder no longer runs (their changes committed first, so nothing is lost);
    and, for `own_task` only (another task's directory may be a worktree being made right now),
    a directory git does not know, moved aside when it holds anything. What was done, said."""
    run_git(repo, "worktree", "prune")
    said: list[str] = []
    root = repo / WORKTREES_DIR
    stale: list[tuple[WorktreeRecord, str]] = []
    for record in worktree_records(repo):
        task = worktree_task(repo, record.path)
        if task is None or record.held_by_live_process():
            continue
        if record.locked is not None and record.holder() is None:
            continue  # locked by someone else, for their reasons
        stale.append((record, task))
    if stale:  # what the dead holders' commands still run stops before their work is saved
        said += [n for r in reap_dead_runs(tether_home(os.environ)) if (n := r.notice())]
    for record, task in stale:
        said += _clear_worktree(repo, record, task)
    own = root / own_task if own_task is not None else None
    if own is not None and not any(r.path == own for r in worktree_records(repo)):
        said += _clear_unknown_directory(repo, own)
    return said


def worktree_task(repo: Path, path: Path) -> str | None:
    """The task name of a task worktree's path (`7`, or `docs/7` for team docs); None for a
    path that is not one."""
    try:
        parts = path.relative_to(repo / WORKTREES_DIR).parts
    except ValueError:
        return None
    if not 1 <= len(parts) <= 2 or parts[0] == ORPHANS_DIR:
        return None
    return "/".join(parts)


def _clear_worktree(repo: Path, listed: WorktreeRecord, task: str) -> list[str]:
    """Inside the task's fenced section, where its runs commit and remove, and only if it is
    still the stale worktree listed: another worker's pre-flight may have cleared it since the
    listing, or a new run of the task taken it."""
    with guarded(repo, task):
        record = next((r for r in worktree_records(repo) if r.path == listed.path), None)
        if record is None or record.locked != listed.locked:
            return []
        if not record.path.is_dir():  # gone, but locked, so `prune` kept git's record
            run_git(repo, "worktree", "unlock", str(record.path), check=False)
            run_git(repo, "worktree", "prune")
            return [f"pruned git's record of task {task}'s worktree, whose directory was gone"]
        saved = ""
        if record.branch is not None:
            commit = _save(record.path, f"tether task {task}: work left by an interrupted run")
            saved = (
                f"; its uncommitted work saved on {record.branch} ({commit[:12]})" if commit else ""
            )
        run_git(repo, "worktree", "remove", "--force", "--force", str(record.path))
        drop_lock_file(repo, task)
        return [f"removed the stale worktree of task {task} (its run had ended){saved}"]


def _clear_unknown_directory(repo: Path, path: Path) -> list[str]:
    if path.is_symlink() or path.is_file():
        path.unlink()
        return [f"removed {path}, which was not a worktree directory"]
    if not path.is_dir():
        return []
    if {p.name for p in path.iterdir()} <= {".git"}:
        shutil.rmtree(path)
        return [f"removed the empty directory {path} left by an interrupted run"]
    aside = repo / WORKTREES_DIR / ORPHANS_DIR / path.relative_to(repo / WORKTREES_DIR)
    n = 1
    while aside.exists():
        n += 1
        aside = aside.with_name(f"{path.name}-{n}")
    aside.parent.mkdir(parents=True, exist_ok=True)
    path.rename(aside)
    return [f"{path} was left by an interrupted run and git no longer knows it: moved to {aside}"]


def _save(path: Path, message: str) -> str | None:
    """Commit everything changed in the worktree at `path` (ignored files aside, no hooks);
    the new commit, or None when nothing changed."""
    if not run_git(path, "status", "--porcelain", "--untracked-files=all").stdout.strip():
        return None
    run_git(path, "add", "--all")
    run_git(path, *identity_args(path), "commit", "--no-verify", "--quiet", "-m", message)
    return git_out(path, "rev-parse", "HEAD")
