"""A task's worktree from start to end, for a worker: `async with task_worktree(...)`.

At the end, however it comes (done, an exception, Ctrl+C or SIGTERM as a cancellation), the
work is committed on the task's branch, the files it shares with other task branches are
reported, and only then is the worktree removed; the branch stays while it holds unmerged
work. `WorktreeCreate` and `WorktreeRemove` hooks run with Claude Code's contract: a
WorktreeCreate hook replaces git's creation and prints the new worktree's path; a
WorktreeRemove hook is told before the worktree goes and cannot stop it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tether.hooks import HookRunner
from tether.hooks.output import describe
from tether.teams.git import git_out
from tether.teams.records import DEFAULT_TEAM, WorktreeHookFailed
from tether.teams.review import Overlap, task_overlaps
from tether.teams.takeover import guarded, holds
from tether.teams.worktrees import (
    TaskWorktree,
    WorktreePlan,
    add_worktree,
    adopt_worktree,
    commit_work,
    plan_worktree,
    remove_worktree,
    unmerged_count,
)

Outcome = Literal["completed", "failed", "interrupted"]


@dataclass(frozen=True)
class Closed:
    """How a task's worktree ended."""

    outcome: Outcome
    commit: str | None
    """The commit of the work left in the worktree; None when nothing was left."""
    overlaps: tuple[Overlap, ...]
    """Files this task's branch changed that other task branches changed too."""
    branch_kept: bool
    """False when the branch held no unmerged work and was deleted."""
    notes: tuple[str, ...] = ()
    """Problems of WorktreeRemove hooks, for the user."""
    unmerged: int = 0
    """Commits on the branch that no other branch holds, this run's commit among them: the
    task's work so far (an earlier attempt's, a taken-over run's), merged nowhere yet."""
    tip: str | None = None
    """The branch's last commit at the end, when `unmerged`."""


@dataclass
class TaskRun:
    """What `task_worktree` yields: the worktree, the message its work will be committed with
    (the worker may set it, e.g. from the task's subject), and, after the block, `closed`."""

    worktree: TaskWorktree
    commit_message: str
    closed: Closed | None = field(default=None)
    stopped: bool = False
    """Set by a worker that stopped the task's session itself (a signal, a lost lease): the
    block then ends normally, yet the work is committed as interrupted."""


async def open_worktree(
    start: Path,
    task_id: str,
    *,
    team: str = DEFAULT_TEAM,
    fence: int | None = None,
    hooks: HookRunner | None = None,
    owner: str | None = None,
) -> TaskWorktree:
    """The pre-flight, then the worktree: made by a WorktreeCreate hook when one is configured,
    by git otherwise (a worktree taken over from a lapsed claim is not made again). `owner`:
    which task this is (`branch_owner.task_owner`), recorded on its branch.
    `WorktreeError` says what went wrong and what to do."""
    # On a thread: git may take a while on a large tree, and the worker's heartbeats go on.
    plan = await asyncio.to_thread(
        plan_worktree, start, task_id, team=team, fence=fence, owner=owner
    )
    if plan.lapsed is None and hooks is not None and hooks.has("WorktreeCreate"):
        return await _create_by_hook(plan, hooks)
    return await asyncio.to_thread(add_worktree, plan)


async def close_worktree(
    worktree: TaskWorktree,
    *,
    outcome: Outcome,
    message: str,
    hooks: HookRunner | None = None,
) -> Closed:
    """Commit, report overlaps, tell WorktreeRemove hooks, remove: in this order, so that
    nothing is torn down before the work is saved and compared. A cancellation while the hooks
    run does not stop the removal; it is raised once the worktree is gone. A worktree a newer
    claim of the task has taken over is left to it untouched: nothing committed or removed."""
    with guarded(worktree.repo, worktree.task_id):
        if worktree.lock and not holds(worktree):
            return Closed(outcome, None, (), True, (_taken_over(worktree),))
        commit = commit_work(
            worktree, message if outcome == "completed" else f"{message} ({outcome})"
        )
        unmerged = unmerged_count(worktree.repo, worktree.branch)
        tip = git_out(worktree.repo, "rev-parse", worktree.branch) if unmerged else None
    overlaps = tuple(task_overlaps(worktree))
    notes: tuple[str, ...] = ()
    cancelled = False
    if hooks is not None and hooks.has("WorktreeRemove"):
        try:
            notes = await _tell_removal(worktree, hooks)
        except asyncio.CancelledError:
            cancelled = True
    kept = remove_worktree(worktree)
    if cancelled:
        raise asyncio.CancelledError
    return Closed(outcome, commit, overlaps, kept, notes, unmerged, tip)


@asynccontextmanager
async def task_worktree(
    start: Path,
    task_id: str,
    *,
    team: str = DEFAULT_TEAM,
    fence: int | None = None,
    hooks: HookRunner | None = None,
    on_close: Callable[[Closed], None] | None = None,
    owner: str | None = None,
) -> AsyncGenerator[TaskRun]:
    """A worktree for `team`'s task `task_id` for the length of the block; closed
    (`close_worktree`) when the block ends in any way. `fence`: the claim the task runs
    under. `on_close` hears how it ended (also set as `run.closed`)."""
    worktree = await open_worktree(start, task_id, team=team, fence=fence, hooks=hooks, owner=owner)
    run = TaskRun(worktree, f"tether task {task_id}")
    outcome: Outcome = "completed"
    try:
        yield run
        if run.stopped:
            outcome = "interrupted"
    except (asyncio.CancelledError, KeyboardInterrupt):
        outcome = "interrupted"
        raise
    except BaseException:
        outcome = "failed"
        raise
    finally:
        run.closed = await close_worktree(
            worktree, outcome=outcome, message=run.commit_message, hooks=hooks
        )
        if on_close is not None:
            on_close(run.closed)


def _taken_over(worktree: TaskWorktree) -> str:
    return (
        f"task {worktree.task_id}'s worktree was taken over by a newer claim of the task (this "
        "run's lease had run out): this run left it to that one, committing nothing"
    )


async def _create_by_hook(plan: WorktreePlan, hooks: HookRunner) -> TaskWorktree:
    payload = {
        "name": plan.task_id,
        "worktree_path": str(plan.path),
        "branch": plan.branch,
        "base_commit": plan.base,
    }
    specs = hooks.matching("WorktreeCreate", payload)
    spec = specs[0]  # one creates the worktree; Claude Code runs one too
    run = await hooks.run(spec, hooks.encode_input("WorktreeCreate", payload))
    lines = [line.strip() for line in run.stdout.splitlines() if line.strip()]
    if run.exit_code != 0 or not lines:
        why = run.failure or (
            f"exit {run.exit_code}" if run.exit_code != 0 else "it printed no path"
        )
        said = f": {run.stderr.strip()}" if run.stderr.strip() else ""
        raise WorktreeHookFailed(
            f"{describe(spec)} ({spec.source}) did not make task {plan.task_id}'s worktree "
            f"({why}{said}); it must print the new worktree's absolute path"
        )
    path = Path(lines[-1])
    if not path.is_absolute():
        path = hooks.cwd / path
    return adopt_worktree(plan, path)


async def _tell_removal(worktree: TaskWorktree, hooks: HookRunner) -> tuple[str, ...]:
    outcome = await hooks.fire(
        "WorktreeRemove",
        {"worktree_path": str(worktree.path), "name": worktree.task_id, "branch": worktree.branch},
    )
    return outcome.errors
