"""`tether worktrees list|merge|clean` as a real process."""

from __future__ import annotations

import os
from pathlib import Path

from tether.teams.lifecycle import task_worktree
from tether.testing.cli_runner import CliResult, run_cli_process

from .conftest import git, write


def worktrees(repo: Path, *argv: str) -> CliResult:
    return run_cli_process(["worktrees", *argv], cwd=repo)


async def test_list_merge_and_clean(repo: Path) -> None:
    for task, text in (("1", "one"), ("2", "two")):
        async with task_worktree(repo, task) as run:
            write(run.worktree.path / "a.txt", f"{text}\n")
    listed = worktrees(repo, "list")
    assert (listed.exit_code, listed.stderr) == (0, "")
    assert listed.stdout == (
        "task 1  tether/1  1 unmerged commit(s), 1 file(s) changed; no worktree\n"
        "task 2  tether/2  1 unmerged commit(s), 1 file(s) changed; no worktree\n"
        "\nFiles changed by more than one task branch (merging them may conflict):\n"
        "  a.txt: changed by task 1 (tether/1), task 2 (tether/2)\n"
    )
    merged = worktrees(repo, "merge", "1")
    head = git(repo, "rev-parse", "HEAD")
    assert (merged.exit_code, merged.stdout) == (0, f"merged tether/1 into main ({head[:12]})\n")
    conflict = worktrees(repo, "merge", "2")
    assert (conflict.exit_code, conflict.stdout) == (1, "")
    assert conflict.stderr.startswith(
        "tether worktrees: merging tether/2 into main conflicts in a.txt: the merge was aborted"
    )
    assert git(repo, "status", "--porcelain") == ""
    cleaned = worktrees(repo, "clean")
    assert (cleaned.exit_code, cleaned.stdout) == (
        0,
        "removed tether/1 (merged or empty)\nkept tether/2: 1 unmerged commit(s)\n",
    )


def test_outside_a_repository_says_so(tmp_path: Path) -> None:
    result = run_cli_process(["worktrees", "list", "--cwd", str(tmp_path)])
    assert (result.exit_code, result.stderr) == (
        1,
        f"tether worktrees: {tmp_path} is not inside a git work tree: task worktrees need one\n",
    )


async def test_merge_takes_a_bare_id_as_the_team_of_team_or_tether_team(repo: Path) -> None:
    for team, name in (("alpha", "a.txt"), ("beta", "b.txt")):
        async with task_worktree(repo, "1", team=team) as run:
            write(run.worktree.path / name, f"{team}\n")
    env = {**os.environ, "TETHER_TEAM": "alpha"}
    by_env = run_cli_process(["worktrees", "merge", "1"], cwd=repo, env=env)
    assert (by_env.exit_code, by_env.stderr) == (0, "")
    assert by_env.stdout.startswith("merged tether/alpha/1 into main")
    by_flag = run_cli_process(["worktrees", "merge", "#1", "--team", "beta"], cwd=repo, env=env)
    assert (by_flag.exit_code, by_flag.stderr) == (0, "")
    assert by_flag.stdout.startswith("merged tether/beta/1 into main")


async def test_clean_leaves_no_empty_directories_behind(repo: Path) -> None:
    for team in ("alpha", "beta"):
        async with task_worktree(repo, "1", team=team):
            pass  # nothing changed: the branch goes at once
    async with task_worktree(repo, "2", team="alpha") as run:
        write(run.worktree.path / "a.txt", "kept\n")
    cleaned = worktrees(repo, "clean")
    assert cleaned.exit_code == 0, cleaned.stderr
    root = repo / ".tether/worktrees"
    left = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    assert left == [".gitignore"]
    assert git(repo, "branch", "--list", "tether/*").split() == ["tether/alpha/2"]
    nothing = worktrees(repo, "merge", "alpha/1")
    assert (nothing.exit_code, nothing.stdout) == (1, "")
    assert nothing.stderr == (
        "tether worktrees: task alpha/1 has no branch to merge: a task's branch is kept only "
        "while it holds unmerged work, so the task committed nothing, or its work is merged "
        "already (`tether tasks show 1 --team alpha` says which; tether worktrees list shows "
        "the task branches)\n"
    )


def test_merge_of_a_task_that_is_not_on_the_board_says_so(repo: Path) -> None:
    added = run_cli_process(["tasks", "add", "one"], cwd=repo)
    assert added.exit_code == 0, added.stderr
    missing = worktrees(repo, "merge", "99")
    assert (missing.exit_code, missing.stdout) == (1, "")
    assert missing.stderr == (
        "tether worktrees: no task #99 in team 'default', and no task branch of that name: "
        "nothing to merge (tether tasks list shows the tasks)\n"
    )
    unrun = worktrees(repo, "merge", "1")  # on the board, but it has no branch
    assert unrun.stderr.startswith("tether worktrees: task 1 has no branch to merge: ")


async def test_a_running_tasks_uncommitted_work_is_listed_as_such(repo: Path) -> None:
    async with task_worktree(repo, "3") as run:
        write(run.worktree.path / "new.txt", "new\n")
        write(run.worktree.path / "a.txt", "edited\n")
        listed = worktrees(repo, "list")
        place = run.worktree.path
    assert (listed.exit_code, listed.stderr) == (0, "")
    assert listed.stdout == (
        "task 3  tether/3  no unmerged commits, 2 file(s) changed (2 not committed yet); "
        f"running in {place}\n"
    )
    after = worktrees(repo, "list")  # committed by the run's end
    assert (
        after.stdout == "task 3  tether/3  1 unmerged commit(s), 2 file(s) changed; no worktree\n"
    )
