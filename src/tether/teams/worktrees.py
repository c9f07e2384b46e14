"""A git worktree per task: `.tether/worktrees/<task>` on branch `tether/<task>` (for a team
other than the default one, `<team>/<task>` in both).

The pre-flight refuses what cannot work (no repository of the project's own, a detached HEAD,
the task running already) with what to do, warns about what
may surprise (a dirty main tree: the task starts from HEAD without those changes), and clears
what a killed run left (its worktree is committed, then removed; git's records of vanished
ones pruned).

An existing branch of the task's name: reset to HEAD when it holds no unmerged work (an empty
or merged earlier attempt); otherwise the new attempt continues it (checked out at its tip,
its commits kept), so that a retried task carries on from its earlier work and its branch
stays one unit to merge. A branch of the task's name checked out outside tether (the main
tree, a worktree of the user's) is left there, and the task starts on the next name
(`tether/<task>.2`): it never ran, so that is not its failure. A worktree whose holder's
claim has lapsed (the store gave the task to a newer claim: `fence`) is taken over in place,
whether or not its process still runs.
Nothing here deletes a branch with unmerged work, and nothing calls `os.chdir`: every git
call names its directory.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from tether.runtime_dir import make_runtime_dir
from tether.teams.branch_owner import branch_owner, record_owner
from tether.teams.git import GitError, git_out, identity_args, run_git
from tether.teams.records import (
    BRANCH_PREFIX,
    DEFAULT_TEAM,
    WORKTREES_DIR,
    WorktreeBusy,
    WorktreeError,
    WorktreeRecord,
    attempt_branch,
    branch_task,
    current_branch,
    lock_reason,
    project_repository,
    task_branches,
    task_name,
    worktree_records,
)
from tether.teams.stale import clear_stale
from tether.teams.takeover import drop_lock_file, guarded, holds, take_over


@dataclass(frozen=True)
class WorktreePlan:
    """Where a task's worktree will be, decided by the pre-flight, before anything is made."""

    task_id: str
    """The task's name: its id, or `<team>/<id>` for a team other than the default one."""
    repo: Path
    """The main worktree."""
    path: Path
    branch: str
    reuse_branch: bool
    """The branch exists with no unmerged work: it is moved to `base` and checked out."""
    base: str
    """The commit it starts from: the main worktree's HEAD, or the tip of the branch it
    continues."""
    base_branch: str
    warnings: tuple[str, ...] = ()
    continues: bool = False
    """The branch holds an earlier attempt's unmerged work: checked out at its tip."""
    lock: str = ""
    """The lock reason this run holds the worktree by (its pid, host and claim)."""
    lapsed: WorktreeRecord | None = None
    """The task's worktree, held under a lapsed claim: taken over, not made."""
    owner: str | None = None
    """Which task this is (`task_owner`), recorded on the branch."""


@dataclass(frozen=True)
class TaskWorktree:
    """A task's worktree, made: run the task's session and commands with `cwd=path`."""

    task_id: str
    """The task's name (see `WorktreePlan.task_id`)."""
    repo: Path
    path: Path
    branch: str
    base: str
    warnings: tuple[str, ...] = ()
    lock: str = ""
    """The lock reason it is held by: a run commits into it and removes it only while the lock
    is still this one (a newer claim of the task may have taken it over)."""


def plan_worktree(
    start: Path,
    task_id: str,
    *,
    team: str = DEFAULT_TEAM,
    fence: int | None = None,
    owner: str | None = None,
) -> WorktreePlan:
    """The pre-flight for `team`'s task `task_id` in the project `start`'s own repository:
    checks, stale clean-up, and the branch to use. `fence`: the claim the task runs under (a
    worktree held under an older claim is taken over). `owner` (`task_owner`): which task
    this is, recorded on the branch it makes; a branch another task's run made is not
    continued. Raises `WorktreeError` saying what
    to do (`RepositoryError` for what stops every task)."""
    name = task_name(team, task_id)
    retry = f"tether tasks retry {task_id}" + (f" --team {team}" if team != DEFAULT_TEAM else "")
    repo = project_repository(start)
    base_branch = current_branch(repo)
    base = git_out(repo, "rev-parse", "HEAD")
    ensure_ignored(repo)
    warnings = [*clear_stale(repo, own_task=name)]
    dirty = [p for p in _changed_paths(repo) if not _own_store(p) and not read_from_main(p)]
    if dirty:
        warnings.append(
            f"the main worktree has {len(dirty)} uncommitted change(s) ({_some(dirty)}): "
            f"task {name}'s worktree starts from HEAD ({base[:12]}) without them"
        )
    path = repo / WORKTREES_DIR / name
    lock = lock_reason(name, fence, owner)
    running = next((r for r in worktree_records(repo) if r.path == path), None)
    if running is not None:  # not stale: its process runs, or is on another host
        if (other := running.other_task(owner)) is not None:
            pid, host = running.holder() or (0, "")
            raise WorktreeBusy(
                f"{path} is held by a run of another task of the same id ({other}, not this "
                f"task {owner}: an earlier board's), in pid {pid} on {host}: this task waits "
                "until that run ends"
            )
        if fence is None or running.branch is None or not running.lapsed_for(name, fence, owner):
            raise WorktreeError(
                _checked_out_elsewhere(running.branch or "its worktree", running, retry)
            )
        warnings.append(
            f"task {name}'s worktree was held under an earlier claim ({running.locked}), whose "
            "lease is gone: this run takes it over and carries on its work"
        )
        head = running.head or base
        return WorktreePlan(
            name, repo, path, running.branch, False, head, base_branch, tuple(warnings),
            continues=True, lock=lock, lapsed=running,
        )  # fmt: skip
    branch, reuse, note = _choose_branch(repo, name, owner, retry)
    continues = not reuse and branch_exists(repo, branch)
    if continues:
        base = git_out(repo, "rev-parse", branch)
    if note:
        warnings.append(note)
    return WorktreePlan(
        name, repo, path, branch, reuse, base, base_branch, tuple(warnings), continues, lock,
        owner=owner,
    )  # fmt: skip


def add_worktree(plan: WorktreePlan) -> TaskWorktree:
    """Make the planned worktree with git, locked as this process's (a lock git keeps: a
    concurrent prune leaves it, and a later pre-flight knows whether its holder still runs);
    or take over the one a lapsed claim held."""
    warnings = plan.warnings
    if plan.owner is not None and plan.lapsed is None:
        record_owner(plan.repo, plan.branch, plan.owner)
    if plan.lapsed is not None:
        note = take_over(plan.repo, plan.lapsed, plan.lock, plan.task_id)
        warnings += (note,) if note is not None else ()
    elif plan.continues:
        run_git(
            plan.repo,
            "worktree", "add", "--lock", "--reason", plan.lock, str(plan.path), plan.branch,
        )  # fmt: skip
    else:
        new = "-B" if plan.reuse_branch else "-b"
        run_git(
            plan.repo,
            "worktree", "add", "--lock", "--reason", plan.lock,
            new, plan.branch, str(plan.path), plan.base,
        )  # fmt: skip
    return TaskWorktree(
        plan.task_id, plan.repo, plan.path, plan.branch, plan.base, warnings, plan.lock
    )


def branch_exists(repo: Path, branch: str) -> bool:
    ref = f"refs/heads/{branch}"
    return run_git(repo, "rev-parse", "--verify", "--quiet", ref, check=False).returncode == 0


def adopt_worktree(plan: WorktreePlan, path: Path) -> TaskWorktree:
    """Take the worktree a `WorktreeCreate` hook made at `path` (it replaces git's creation, as
    in Claude Code): it must be a worktree of this repository on a branch, for the task's
    work to be committed, compared and merged."""
    record = next((r for r in worktree_records(plan.repo) if _same(r.path, path)), None)
    if record is None or record.branch is None:
        what = "not a worktree of this repository" if record is None else "on a detached HEAD"
        raise WorktreeError(
            f"the WorktreeCreate hook printed {path}, which is {what}: tether needs a worktree "
            f"of {plan.repo} on a branch to commit, compare and merge task {plan.task_id}'s work"
        )
    if plan.owner is not None:
        record_owner(plan.repo, record.branch, plan.owner)
    lock = record.locked
    if lock is None:
        run_git(plan.repo, "worktree", "lock", "--reason", plan.lock, str(path))
        lock = plan.lock
    return TaskWorktree(
        plan.task_id, plan.repo, record.path, record.branch, plan.base, plan.warnings, lock
    )


def commit_work(worktree: TaskWorktree, message: str) -> str | None:
    """Commit everything changed in the worktree (ignored files aside) on its branch; the new
    commit, or None when nothing changed. The user's pre-commit hooks are not run: they could
    refuse, and the work must not be lost (the merge is where the user's checks apply)."""
    path = worktree.path
    if not _changed_paths(path):
        return None
    return commit_changes(path, message)


def commit_changes(path: Path, message: str) -> str:
    """Commit everything changed in the worktree at `path`; the new commit."""
    run_git(path, "add", "--all")
    run_git(path, *identity_args(path), "commit", "--no-verify", "--quiet", "-m", message)
    return git_out(path, "rev-parse", "HEAD")


def remove_worktree(worktree: TaskWorktree) -> bool:
    """Remove the worktree's directory and git's record of it, then its branch unless it holds
    unmerged work (kept for review). Whether the branch was kept. A worktree this run no
    longer holds (taken over by a newer claim) is left to its holder: kept."""
    with guarded(worktree.repo, worktree.task_id):
        if worktree.lock and not holds(worktree):
            return True
        remove_directory(worktree.repo, worktree.path)
        _drop_team_directory(worktree.repo, worktree.path)
        drop_lock_file(worktree.repo, worktree.task_id)
        return delete_if_empty(worktree.repo, worktree.branch)


def _drop_team_directory(repo: Path, path: Path) -> None:
    """A team's directory of worktrees (`.tether/worktrees/<team>`), once its last is gone (git
    makes it again for the next)."""
    parent, root = path.parent, repo / WORKTREES_DIR
    if parent != root and root in parent.parents:
        with contextlib.suppress(OSError):  # not empty: the team's other worktrees
            parent.rmdir()


def remove_directory(repo: Path, path: Path) -> None:
    """Remove a worktree git knows (a no-op for one it does not)."""
    if any(_same(r.path, path) for r in worktree_records(repo)):
        # Twice --force: also when locked (by this process) and with ignored files inside.
        args = ("worktree", "remove", "--force", "--force", str(path))
        done = run_git(repo, *args, check=False)
        if done.returncode != 0 and any(_same(r.path, path) for r in worktree_records(repo)):
            raise GitError(args, repo, done.stderr or done.stdout)  # not removed meanwhile


def delete_if_empty(repo: Path, branch: str) -> bool:
    """Delete `branch` if it holds no unmerged work; whether it was kept. A branch deleted
    meanwhile (another worker's `worktrees clean`, its own task's end) is gone all the same."""
    if unmerged_count(repo, branch) > 0:
        return True
    done = run_git(repo, "branch", "--quiet", "-D", branch, check=False)
    if done.returncode != 0 and _branch_exists(repo, branch):
        raise GitError(("branch", "--quiet", "-D", branch), repo, done.stderr or done.stdout)
    return False


def unmerged_count(repo: Path, branch: str, tip: str | None = None) -> int:
    """Commits on `branch` (at `tip`, when read from a listing) that no other branch holds
    (task branches aside): its own work. (A WorktreeCreate hook may name its branch otherwise:
    the branch itself is left out too.) A branch gone holds none: tether deletes a task branch
    only once it holds no unmerged work, and another worker may do so at any moment."""
    out = git_out(
        repo,
        "rev-list", "--count", "--ignore-missing", tip or f"refs/heads/{branch}", "--not",
        f"--exclude={BRANCH_PREFIX}*", f"--exclude={branch}", "--branches",
    )  # fmt: skip
    return int(out)


def _branch_exists(repo: Path, branch: str) -> bool:
    found = run_git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False)
    return found.returncode == 0


def ensure_ignored(repo: Path) -> None:
    """Keep task worktrees out of the main tree's `git status` and out of listings that follow
    .gitignore (rg, hence Glob and Grep): a `.gitignore` of `*` inside their directory, which
    ignores itself too, so nothing of the user's changes."""
    directory = repo / WORKTREES_DIR
    make_runtime_dir(directory)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# tether's task worktrees: none of it belongs to this tree\n*\n")


def _choose_branch(
    repo: Path, name: str, owner: str | None, retry: str
) -> tuple[str, bool, str | None]:
    """(branch, reset it to HEAD, a note): see the module docstring. With `owner`, a latest
    branch another task made (an earlier board's task of the same id) is left untouched if it
    holds unmerged work, and the task gets the next name; so does a latest branch checked out
    outside tether (in the main tree or a worktree of the user's). `retry`: the command that
    runs the task again, named in errors."""
    attempts = [
        attempt
        for task, attempt in filter(None, map(branch_task, task_branches(repo)))
        if task == name
    ]
    if not attempts:
        return attempt_branch(name, 1), False, None
    latest = attempt_branch(name, max(attempts))
    holder = next((r for r in worktree_records(repo) if r.branch == latest), None)
    work = unmerged_count(repo, latest)
    found = branch_owner(repo, latest) if owner is not None else owner
    if work and found != owner:
        fresh = attempt_branch(name, max(attempts) + 1)
        whose = f"task {found}" if found is not None else "a task of no recorded board"
        note = (
            f"{latest} holds {work} unmerged commit(s) of another task of the same name "
            f"({whose}, not this task {owner}): it is left untouched, and this task starts "
            f"afresh on {fresh}"
        )
        return fresh, False, note
    if holder is not None:
        if holder.held_by_live_process():
            raise WorktreeError(_checked_out_elsewhere(latest, holder, retry))
        # Checked out by someone (the main tree, a worktree of theirs): git checks a branch
        # out once, so the task takes the next name rather than fail without having run.
        fresh = attempt_branch(name, max(attempts) + 1)
        kept = f", with its {work} unmerged commit(s)," if work else ""
        note = (
            f"{latest} is checked out in {holder.path} (git checks a branch out once): it is "
            f"left there{kept} and this task starts afresh on {fresh}"
        )
        return fresh, False, note
    if work:
        note = (
            f"{latest} holds {work} unmerged commit(s) of an earlier attempt of task {name}: "
            "this attempt continues from them (delete the branch first to start afresh)"
        )
        return latest, False, note
    return latest, True, None


def _checked_out_elsewhere(branch: str, record: WorktreeRecord, retry: str) -> str:
    if record.held_by_live_process():
        pid, host = record.holder() or (0, "")
        return f"{branch} is in use: its task runs in pid {pid} on {host} (worktree {record.path})"
    return (
        f"branch {branch} is checked out in the worktree at {record.path}, and git checks a "
        f"branch out once: switch that worktree to another branch "
        f"(git -C {record.path} switch <other-branch>) or remove it "
        f"(git worktree remove {record.path}), then run the task again ({retry})"
    )


def _changed_paths(tree: Path) -> list[str]:
    """Paths with uncommitted changes (untracked ones too, ignored ones not)."""
    out = run_git(
        tree, "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all"
    ).stdout
    return [entry[3:] for entry in out.split("\0") if len(entry) > 3 and entry[2] == " "]


MAIN_WORKSPACE_FILES = frozenset(
    {
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".tether/settings.json",
        ".tether/settings.local.json",
        ".tether/memory.md",
        ".tether/mcp.local.json",
        ".mcp.json",
    }
)
"""Files a task's session reads from the main workspace, not from its worktree (the teams
README: settings, local ones too, the memory, MCP servers); with `CLAUDE.local.md` anywhere."""


def read_from_main(path: str) -> bool:
    """Whether a task's session reads this file (relative to the repository) from the main
    workspace as it is now: its uncommitted changes reach the task, so no warning names it."""
    return path in MAIN_WORKSPACE_FILES or path.rpartition("/")[2] == "CLAUDE.local.md"


def _own_store(path: str) -> bool:
    """The project's task store (`.tether/tasks.db` and SQLite's files beside it): tether's
    bookkeeping, not changes a task's worktree would miss."""
    return path.startswith(".tether/tasks.db")


def _some(paths: list[str], limit: int = 3) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
