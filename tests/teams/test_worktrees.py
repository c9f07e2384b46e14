"""Task worktrees against real git: pre-flight, the end of a task, overlaps, merge, clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tether.teams.lifecycle import Closed, task_worktree
from tether.teams.records import WorktreeError, check_task_id
from tether.teams.review import Overlap, branch_states, clean_worktrees, find_overlaps, merge_task
from tether.teams.worktrees import add_worktree, plan_worktree

from .conftest import git, write


async def test_a_task_runs_in_its_own_worktree_and_its_work_stays_on_its_branch(
    repo: Path,
) -> None:
    async with task_worktree(repo, "7") as run:
        wt = run.worktree
        assert (wt.path, wt.branch) == (repo / ".tether/worktrees/7", "tether/7")
        assert git(wt.path, "rev-parse", "--abbrev-ref", "HEAD") == "tether/7"
        write(wt.path / "a.txt", "changed by 7\n")
        write(wt.path / "new/file.txt", "new\n")
        assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    commit = git(repo, "rev-parse", "tether/7")
    assert run.closed == Closed("completed", commit, (), True, unmerged=1, tip=commit)
    assert not wt.path.exists()
    assert git(repo, "show", "tether/7:a.txt") == "changed by 7"
    assert git(repo, "show", "tether/7:new/file.txt") == "new"
    assert git(repo, "log", "-1", "--format=%s|%an", "tether/7") == "tether task 7|Repo User"
    assert (repo / "a.txt").read_text() == "a\n"


async def test_a_task_that_changed_nothing_leaves_no_branch(repo: Path) -> None:
    async with task_worktree(repo, "idle") as run:
        pass
    assert run.closed == Closed("completed", None, (), False)
    assert git(repo, "branch", "--list", "tether/*") == ""


async def test_a_failed_task_keeps_its_work_and_the_error_goes_on(repo: Path) -> None:
    closed: list[Closed] = []

    async def fail() -> None:
        async with task_worktree(repo, "f1", on_close=closed.append) as run:
            write(run.worktree.path / "half.txt", "half done\n")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await fail()
    assert [c.outcome for c in closed] == ["failed"]
    assert git(repo, "log", "-1", "--format=%s", "tether/f1") == "tether task f1 (failed)"
    assert git(repo, "show", "tether/f1:half.txt") == "half done"
    assert not (repo / ".tether/worktrees/f1").exists()


def test_a_detached_head_is_refused_with_what_to_do(repo: Path) -> None:
    git(repo, "checkout", "--quiet", "--detach")
    with pytest.raises(WorktreeError) as caught:
        plan_worktree(repo, "1")
    head = git(repo, "rev-parse", "--short", "HEAD")
    assert str(caught.value) == (
        f"the repository at {repo} is on a detached HEAD ({head}): task worktrees start from a "
        f"branch and are merged back into it. Switch to a branch first: git -C {repo} switch "
        "<branch> (or git switch -c <new-branch> to keep this commit)"
    )


def test_a_dirty_tree_is_warned_and_the_worktree_starts_from_head(repo: Path) -> None:
    write(repo / "a.txt", "uncommitted\n")
    write(repo / "extra.txt", "untracked\n")
    worktree = add_worktree(plan_worktree(repo, "1"))
    head = git(repo, "rev-parse", "HEAD")
    assert worktree.warnings == (
        "the main worktree has 2 uncommitted change(s) (a.txt, extra.txt): task 1's worktree "
        f"starts from HEAD ({head[:12]}) without them",
    )
    assert (worktree.path / "a.txt").read_text() == "a\n"
    assert not (worktree.path / "extra.txt").exists()


def test_an_earlier_branch_without_work_is_reused_from_head(repo: Path) -> None:
    git(repo, "branch", "tether/3")
    write(repo / "a.txt", "moved on\n")
    git(repo, "commit", "--quiet", "-am", "main moves on")
    plan = plan_worktree(repo, "3")
    assert (plan.branch, plan.reuse_branch, plan.warnings) == ("tether/3", True, ())
    worktree = add_worktree(plan)
    assert git(worktree.path, "rev-parse", "HEAD") == git(repo, "rev-parse", "HEAD")


async def test_a_later_attempt_continues_the_earlier_attempts_unmerged_work(repo: Path) -> None:
    async with task_worktree(repo, "3") as first:
        write(first.worktree.path / "a.txt", "first attempt\n")
    earlier = git(repo, "rev-parse", "tether/3")
    write(repo / "b.txt", "main moves on\n")
    git(repo, "commit", "--quiet", "-am", "main moves on")
    plan = plan_worktree(repo, "3")
    assert (plan.branch, plan.reuse_branch, plan.continues, plan.base) == (
        "tether/3",
        False,
        True,
        earlier,
    )
    assert plan.warnings == (
        "tether/3 holds 1 unmerged commit(s) of an earlier attempt of task 3: this attempt "
        "continues from them (delete the branch first to start afresh)",
    )
    async with task_worktree(repo, "3") as second:
        assert (second.worktree.path / "a.txt").read_text() == "first attempt\n"
        write(second.worktree.path / "a.txt", "first attempt\nsecond attempt\n")
    # One branch holds both attempts, one after the other: it merges as one unit.
    assert git(repo, "log", "--format=%s", "main..tether/3").splitlines() == [
        "tether task 3",
        "tether task 3",
    ]
    assert git(repo, "branch", "--list", "tether/3*").split() == ["tether/3"]
    merged = merge_task(repo, "3")
    assert merged.branch == "tether/3"
    assert (repo / "a.txt").read_text() == "first attempt\nsecond attempt\n"


async def test_a_branch_checked_out_elsewhere_is_left_there_and_the_task_takes_the_next_name(
    repo: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    git(repo, "worktree", "add", "--quiet", "-b", "tether/4", str(elsewhere))
    plan = plan_worktree(repo, "4")
    assert (plan.branch, plan.reuse_branch, plan.continues) == ("tether/4.2", False, False)
    assert plan.warnings == (
        f"tether/4 is checked out in {elsewhere} (git checks a branch out once): it is left "
        "there and this task starts afresh on tether/4.2",
    )
    write(elsewhere / "mine.txt", "the user's\n")
    git(elsewhere, "add", "mine.txt")
    git(elsewhere, "commit", "--quiet", "-m", "the user's work")
    users = git(repo, "rev-parse", "tether/4")
    async with task_worktree(repo, "4") as run:
        assert run.worktree.branch == "tether/4.2"
        write(run.worktree.path / "a.txt", "task 4\n")
    assert git(repo, "show", "tether/4.2:a.txt") == "task 4"
    assert git(repo, "rev-parse", "tether/4") == users  # the user's branch is untouched
    assert git(elsewhere, "rev-parse", "--abbrev-ref", "HEAD") == "tether/4"


async def test_a_task_branch_checked_out_in_the_main_tree_is_left_there(repo: Path) -> None:
    git(repo, "switch", "--quiet", "-c", "tether/9")
    write(repo / "a.txt", "reviewing\n")
    git(repo, "commit", "--quiet", "-am", "review notes")
    plan = plan_worktree(repo, "9", team="blue")
    assert plan.branch == "tether/blue/9"  # another team's names do not collide
    plan = plan_worktree(repo, "9")
    assert plan.branch == "tether/9.2"
    assert plan.warnings == (
        f"tether/9 is checked out in {repo} (git checks a branch out once): it is left there, "
        "with its 1 unmerged commit(s), and this task starts afresh on tether/9.2",
    )


def test_a_task_already_running_is_refused(repo: Path) -> None:
    add_worktree(plan_worktree(repo, "5"))
    with pytest.raises(WorktreeError, match=r"^tether/5 is in use: its task runs in pid \d+"):
        plan_worktree(repo, "5")


def test_a_worktree_left_by_a_dead_run_is_saved_then_removed(repo: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    path = repo / ".tether/worktrees/6"
    reason = f"tether task 6: pid {dead} on {_host()}"
    git(
        repo,
        "worktree",
        "add",
        "--quiet",
        "--lock",
        "--reason",
        reason,
        "-b",
        "tether/6",
        str(path),
    )
    write(path / "b.txt", "unsaved work\n")
    plan = plan_worktree(repo, "other")
    saved = git(repo, "rev-parse", "tether/6")
    assert plan.warnings == (
        "removed the stale worktree of task 6 (its run had ended); its uncommitted work saved "
        f"on tether/6 ({saved[:12]})",
    )
    assert not path.exists()
    assert git(repo, "show", "tether/6:b.txt") == "unsaved work"


def test_directories_left_by_a_killed_run_are_cleared_or_moved_aside(repo: Path) -> None:
    empty = repo / ".tether/worktrees/8"
    empty.mkdir(parents=True)
    (empty / ".git").write_text("gitdir: /nowhere\n")
    assert plan_worktree(repo, "8").warnings == (
        f"removed the empty directory {empty} left by an interrupted run",
    )
    write(empty / "notes.txt", "something\n")
    aside = repo / ".tether/worktrees/.orphaned/8"
    assert plan_worktree(repo, "8").warnings == (
        f"{empty} was left by an interrupted run and git no longer knows it: moved to {aside}",
    )
    assert (aside / "notes.txt").read_text() == "something\n"


async def test_files_changed_by_two_tasks_are_reported_before_teardown(repo: Path) -> None:
    async with task_worktree(repo, "1") as one:
        write(one.worktree.path / "a.txt", "one\n")
        async with task_worktree(repo, "2") as two:
            write(two.worktree.path / "a.txt", "two\n")
            write(two.worktree.path / "b.txt", "two\n")
        # 1's change is not committed yet: its worktree's changes count.
        assert two.closed is not None
        assert two.closed.overlaps == (Overlap("a.txt", ("tether/1", "tether/2")),)
    assert one.closed is not None
    assert one.closed.overlaps == (Overlap("a.txt", ("tether/1", "tether/2")),)
    assert find_overlaps(branch_states(repo)) == [Overlap("a.txt", ("tether/1", "tether/2"))]
    assert one.closed.overlaps[0].describe() == (
        "a.txt: changed by task 1 (tether/1), task 2 (tether/2)"
    )


async def test_a_merge_conflict_is_named_and_the_repository_left_clean(repo: Path) -> None:
    for task in ("1", "2"):
        async with task_worktree(repo, task) as run:
            write(run.worktree.path / "a.txt", f"task {task}\n")
    merged = merge_task(repo, "1")
    assert (merged.branch, merged.into) == ("tether/1", "main")
    head = git(repo, "rev-parse", "HEAD")
    with pytest.raises(WorktreeError) as caught:
        merge_task(repo, "2")
    assert str(caught.value) == (
        "merging tether/2 into main conflicts in a.txt: the merge was aborted and main is as "
        "it was. Resolve by hand (git merge tether/2, edit those files, git commit), or rework "
        "the task on top of the current branch"
    )
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == ""
    assert (repo / "a.txt").read_text() == "task 1\n"


async def test_clean_removes_merged_and_empty_branches_and_keeps_unmerged_work(
    repo: Path,
) -> None:
    for task, name in (("1", "a.txt"), ("2", "b.txt")):
        async with task_worktree(repo, task) as run:
            write(run.worktree.path / name, f"task {task}\n")
    git(repo, "branch", "tether/3")
    merge_task(repo, "1")
    cleaned = clean_worktrees(repo)
    assert (cleaned.removed, cleaned.kept) == (
        ("tether/1", "tether/3"),
        ("tether/2: 1 unmerged commit(s)",),
    )
    assert git(repo, "branch", "--list", "tether/*").split() == ["tether/2"]


async def test_commits_need_no_configured_identity(repo: Path) -> None:
    git(repo, "config", "--unset", "user.name")
    git(repo, "config", "--unset", "user.email")
    git(repo, "config", "user.useConfigOnly", "true")
    async with task_worktree(repo, "9") as run:
        write(run.worktree.path / "a.txt", "anyone\n")
    assert git(repo, "log", "-1", "--format=%an <%ae>", "tether/9") == "tether <tether@localhost>"


@pytest.mark.parametrize("bad", ["", "a/b", "../x", "a.b", "-x", "x y", "a" * 101])
def test_task_ids_that_cannot_name_a_branch_are_refused(bad: str) -> None:
    with pytest.raises(WorktreeError, match="cannot name a worktree"):
        check_task_id(bad)


def _host() -> str:
    import socket

    return socket.gethostname()
