"""A task whose branch holds the work an earlier attempt left (interrupted in a worktree,
its work committed on `tether/<task>`) is continued on that branch by a worker run without
`--worktrees`, and its result names the branch. Measured before: the later run redid the task
from scratch in the main tree, the branch stayed unmerged, and `tasks show` did not name it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tether.testing import FakeModelServer
from tether.testing.workers import done_text, task_answers

from .workers import add_tasks, board, finish, start_worker


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_worker_without_worktrees_continues_the_branch_an_earlier_attempt_left(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(done_text)
    add_tasks(repo, [], "paint the zebra")
    created = board(repo, [])["tasks"][0]["created_at"]
    # What an interrupted attempt leaves: its work committed on tether/1, recorded as task 1's.
    _git(repo, "branch", "tether/1")
    _git(repo, "config", "branch.tether/1.tetherTask", f"1@{created:.6f}")
    left = repo / ".tether" / "left"
    _git(repo, "worktree", "add", "-q", str(left), "tether/1")
    (left / "stripes.txt").write_text("half done\n")
    _git(left, "add", "stripes.txt")
    _git(left, "commit", "-q", "-m", "tether task 1: paint the zebra (interrupted)")
    _git(repo, "worktree", "remove", str(left))

    code, out, err = finish(start_worker(repo, "--until-idle"))

    assert code == 0, err
    assert "tether/1 holds 1 unmerged commit(s) of an earlier attempt of task #1" in out
    task = board(repo, [])["tasks"][0]
    assert task["status"] == "completed"
    assert "tether/1" in task["result"]
    # It ran where the earlier work is, not in the main tree.
    prompt = next(r.last_user_text() for r in model_env.requests)
    assert "You work in a git worktree of your own, on branch tether/1" in prompt
    assert not (repo / "stripes.txt").exists()
    assert _git(repo, "show", "tether/1:stripes.txt") == "half done"
