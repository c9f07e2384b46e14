"""A task whose session ran but whose worktree could not be closed (here `git add` finds the
worktree's index locked when the work is committed) is failed saying so, with git's error and
the session's answer. Measured before: it was recorded as "could not run: its worktree: ...",
as if the session had never run, its answer lost."""

from __future__ import annotations

from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text

from .conftest import git
from .workers import add_tasks, board, finish, start_worker


def test_a_worktree_that_cannot_be_closed_says_what_failed(
    repo: Path, model_env: FakeModelServer
) -> None:
    def respond(request: RecordedRequest) -> Turn:
        # The session's last answer: work in its worktree to commit, and git's lock on the
        # worktree's index, as a git command left running (or killed) would leave it, so
        # committing the work fails.
        for worktree in (repo / ".tether" / "worktrees").iterdir():
            if worktree.is_dir():
                (worktree / "work.txt").write_text("work\n")
        for gitdir in (repo / ".git" / "worktrees").iterdir():
            (gitdir / "index.lock").write_text("")
        return text("the answer of the session")

    model_env.responder = respond
    add_tasks(repo, [], "locked")
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees"))
    task = board(repo, [])["tasks"][0]
    assert task["status"] == "failed", err
    said = task["error"] or task["result"] or ""
    assert "could not run" not in said
    assert said.startswith("its session ran, but its worktree could not be closed")
    assert "index.lock" in said
    assert "The session's answer: the answer of the session" in said
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 2  # left there
    assert code in (0, 1)
