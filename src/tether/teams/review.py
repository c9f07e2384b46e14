"""Reviewing task branches before and after teardown: which files each changed, which files two
or more changed (reported before any worktree is removed), merging one into the current branch
(a conflict aborted, the tree left as it was), and cleaning up what holds no unmerged work."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from tether.teams.git import git_out, identity_args, nul_split, run_git
from tether.teams.records import (
    BRANCH_PREFIX,
    WORKTREES_DIR,
    NoTaskBranch,
    WorktreeError,
    WorktreeRecord,
    branch_task,
    main_worktree,
    task_branch_tips,
    task_branches,
    worktree_records,
)
from tether.teams.stale import clear_stale, worktree_task
from tether.teams.takeover import drop_idle_locks, drop_lock_file, guarded
from tether.teams.worktrees import (
    TaskWorktree,
    delete_if_empty,
    remove_directory,
    unmerged_count,
)


@dataclass(frozen=True)
class BranchState:
    """One task branch, as `tether worktrees list` shows it."""

    task_id: str
    branch: str
    unmerged: int
    """Commits no other (non-task) branch holds: 0 means merged or empty."""
    changed: tuple[str, ...]
    """Files it changed since it left the current branch, uncommitted changes included."""
    worktree: WorktreeRecord | None
    uncommitted: tuple[str, ...] = ()
    """Of `changed`, those changed in its worktree and not committed yet (a running task's)."""


@dataclass(frozen=True)
class Overlap:
    """A file changed by two or more task branches: merging them may conflict."""

    path: str
    branches: tuple[str, ...]

    def describe(self) -> str:
        tasks = ", ".join(f"task {_task_of(b)} ({b})" for b in self.branches)
        return f"{self.path}: changed by {tasks}"


def branch_states(start: Path) -> list[BranchState]:
    """Every task branch of the repository holding `start`."""
    repo = main_worktree(start)
    holders = {r.branch: r for r in worktree_records(repo) if r.branch is not None}
    states: list[BranchState] = []
    for branch, tip in task_branch_tips(repo).items():  # each read at its tip: see there
        worktree = holders.get(branch)
        committed, uncommitted = _changed_files(repo, branch, tip, worktree)
        states.append(
            BranchState(
                _task_of(branch),
                branch,
                unmerged_count(repo, branch, tip),
                tuple(sorted(committed | uncommitted)),
                worktree,
                tuple(sorted(uncommitted)),
            )
        )
    return states


def find_overlaps(states: list[BranchState], *, involving: str | None = None) -> list[Overlap]:
    """Files changed by two or more of the branches that hold unmerged work (or a live
    worktree); only those `involving` changed, when given (one task's report at its end)."""
    changed_by: dict[str, list[str]] = defaultdict(list)
    for state in states:
        if state.unmerged or state.worktree is not None or state.branch == involving:
            for path in state.changed:
                changed_by[path].append(state.branch)
    return [
        Overlap(path, tuple(branches))
        for path, branches in sorted(changed_by.items())
        if len(branches) > 1 and (involving is None or involving in branches)
    ]


def task_overlaps(worktree: TaskWorktree) -> list[Overlap]:
    """Files `worktree`'s branch changed that other task branches changed too."""
    return find_overlaps(branch_states(worktree.repo), involving=worktree.branch)


@dataclass(frozen=True)
class Merged:
    branch: str
    into: str
    commit: str


def merge_task(start: Path, task_or_branch: str) -> Merged:
    """Merge a task's branch into the main worktree's current branch (a merge commit, so the
    task's work stays one unit). A conflict aborts the merge (`git merge --abort`: the tree as
    it was) and says which files; so does anything else that stops it."""
    repo = main_worktree(start)
    branch = resolve_branch(repo, task_or_branch)
    holder = next((r for r in worktree_records(repo) if r.branch == branch), None)
    if holder is not None and holder.held_by_live_process():
        raise WorktreeError(
            f"{branch} is still being worked on (worktree {holder.path}): merge it once its "
            "task has ended"
        )
    into = run_git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).stdout.strip()
    if not into:
        raise WorktreeError(f"{repo} is on a detached HEAD: switch to the branch to merge into")
    if unmerged_count(repo, branch) == 0:
        raise WorktreeError(f"{branch} holds no unmerged work: nothing to merge")
    message = f"Merge task {_task_of(branch)} ({branch})"
    done = run_git(
        repo, *identity_args(repo), "merge", "--no-ff", "--no-edit", "-m", message, branch,
        check=False,
    )  # fmt: skip
    if done.returncode == 0:
        return Merged(branch, into, git_out(repo, "rev-parse", "HEAD"))
    conflicts = nul_split(git_out(repo, "diff", "--name-only", "-z", "--diff-filter=U"))
    merging = run_git(repo, "rev-parse", "--verify", "--quiet", "MERGE_HEAD", check=False)
    if merging.returncode == 0:
        run_git(repo, "merge", "--abort")
    if conflicts:
        raise WorktreeError(
            f"merging {branch} into {into} conflicts in {', '.join(conflicts)}: the merge was "
            f"aborted and {into} is as it was. Resolve by hand (git merge {branch}, edit those "
            "files, git commit), or rework the task on top of the current branch"
        )
    said = (done.stderr or done.stdout).strip()
    raise WorktreeError(f"git could not merge {branch} into {into}, nothing changed: {said}")


@dataclass(frozen=True)
class Cleaned:
    removed: tuple[str, ...]
    """Branches deleted (with their worktrees): merged or empty."""
    kept: tuple[str, ...]
    """Branches kept, each with why."""
    notes: tuple[str, ...]
    """Stale worktrees cleared."""


def clean_worktrees(start: Path) -> Cleaned:
    """Clear stale worktrees; delete each task branch with no unmerged work (and its worktree,
    unless its task still runs); keep the others, saying why."""
    repo = main_worktree(start)
    notes = clear_stale(repo)
    removed: list[str] = []
    kept: list[str] = []
    for state in branch_states(repo):
        record = state.worktree
        if record is not None and record.held_by_live_process():
            kept.append(f"{state.branch}: its task is running (worktree {record.path})")
        elif state.unmerged:
            kept.append(f"{state.branch}: {state.unmerged} unmerged commit(s)")
        elif record is not None and worktree_task(repo, record.path) is None:
            kept.append(f"{state.branch}: checked out in {record.path}, not a task worktree")
        else:
            if record is not None:
                remove_directory(repo, record.path)
            delete_if_empty(repo, state.branch)
            removed.append(state.branch)
    drop_idle_locks(repo)
    _drop_empty_directories(repo / WORKTREES_DIR)
    return Cleaned(tuple(removed), tuple(kept), tuple(notes))


def _drop_empty_directories(directory: Path, *, top: bool = True) -> None:
    """Remove the empty directories under `directory` (a team's, the locks', the orphans'),
    deepest first, not going into worktrees; one that is not empty, or that a run fills
    meanwhile, stays."""
    with contextlib.suppress(OSError):  # gone meanwhile: nothing to do
        for child in directory.iterdir():
            if child.is_dir() and not child.is_symlink() and not (child / ".git").exists():
                _drop_empty_directories(child, top=False)
    if not top:
        with contextlib.suppress(OSError):  # not empty: left as it is
            directory.rmdir()


def resolve_branch(repo: Path, task_or_branch: str) -> str:
    """The branch meant by a task's name (its id, or `<team>/<id>`: its only, or latest,
    branch with unmerged work) or a branch name; `WorktreeError` listing the choices when a
    task has several."""
    branches = task_branches(repo)
    if task_or_branch in branches:
        return task_or_branch
    own = [b for b in branches if _task_of(b) == task_or_branch]
    if not own:
        if branch_task(f"{BRANCH_PREFIX}{task_or_branch}") is None:
            raise WorktreeError(
                f"no task branch for {task_or_branch!r} (see tether worktrees list)"
            )
        raise NoTaskBranch(
            f"task {task_or_branch} has no branch to merge: a task's branch is kept only while "
            "it holds unmerged work, so the task committed nothing, or its work is merged "
            f"already (`{_show_command(task_or_branch)}` says which; "
            "tether worktrees list shows the task branches)"
        )
    with_work = [b for b in own if unmerged_count(repo, b) > 0]
    if len(with_work) > 1:
        raise WorktreeError(
            f"task {task_or_branch} has {len(with_work)} branches with unmerged work "
            f"({', '.join(with_work)}): name the one to merge"
        )
    return (with_work or own)[-1]


def _changed_files(
    repo: Path, branch: str, tip: str, worktree: WorktreeRecord | None
) -> tuple[set[str], set[str]]:
    """The files the branch's commits (up to `tip`) changed since it left HEAD, and those
    changed in its worktree and not committed."""
    base = run_git(repo, "merge-base", "HEAD", tip, check=False).stdout.strip()
    committed: set[str] = set()
    if base:
        committed = set(
            nul_split(git_out(repo, "diff", "--name-only", "-z", "--no-renames", base, tip))
        )
    uncommitted = _uncommitted(repo, branch, worktree) if worktree is not None else set[str]()
    return committed, uncommitted


def _uncommitted(repo: Path, branch: str, worktree: WorktreeRecord) -> set[str]:
    """The files changed and not committed in a task's worktree, read inside its task's
    fenced section: its run commits into it and removes it there (another worker's, as its
    task ends), so it is read whole or not at all; gone, it holds nothing uncommitted (its
    work was committed first). Read outside, git ran in a directory being deleted (it
    failed, and so did the task whose end compared branches) or listed half-deleted files,
    and took the worktree's index lock from under the run committing into it."""
    name = _task_of(branch)
    with guarded(repo, name):
        if not any(r.path == worktree.path for r in worktree_records(repo)):
            drop_lock_file(repo, name)  # made again by this section: it goes with the worktree
            return set()
        if not worktree.path.is_dir():
            return set()
        status = git_out(worktree.path, "status", "--porcelain", "-z", "--no-renames", "-uall")
    return {entry[3:] for entry in status.split("\0") if len(entry) > 3}


def _show_command(name: str) -> str:
    team, _, task_id = name.rpartition("/")
    return f"tether tasks show {task_id}" + (f" --team {team}" if team else "")


def _task_of(branch: str) -> str:
    parsed = branch_task(branch)
    return parsed[0] if parsed else branch
