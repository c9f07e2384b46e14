"""A task branch belongs to the task whose run made it: a new board's task of the same id
(the task file recreated, another store) leaves an earlier board's branch untouched and starts
a branch of its own; a retried task still continues its own."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use

from .conftest import git, write
from .test_worker_worktrees import step
from .workers import add_tasks, board, finish, start_worker, tether


def test_a_new_boards_task_leaves_an_earlier_boards_branch_of_its_id_untouched(
    repo: Path, model_env: FakeModelServer
) -> None:
    write(repo / ".claude/settings.json", json.dumps({"permissions": {"allow": ["Write"]}}))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "rules")

    def answer(request: RecordedRequest) -> Turn:
        if step(request) == 0:
            first = json.dumps(request.messages()[0])
            name = "old.txt" if "old work" in first else "new.txt"
            tree = repo / ".tether/worktrees/1"
            return tool_use("Write", file_path=str(tree / name), content=f"{name}\n")
        return text("done")

    model_env.responder = answer
    env = {**os.environ, "TETHER_TRUST_WORKSPACE": "1"}
    add_tasks(repo, [], "old work")
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=env))
    assert code == 0, err
    old_tip = git(repo, "rev-parse", "tether/1")
    (repo / ".tether/tasks.db").unlink()  # a new board: its first task is #1 again
    add_tasks(repo, [], "new work")
    code, out, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=env))
    assert code == 0, err
    assert "continues from them" not in out
    assert (
        "warning: tether/1 holds 1 unmerged commit(s) of another task of the same name "
        "(task 1@" in out
    )
    assert "it is left untouched, and this task starts afresh on tether/1.2" in out
    assert git(repo, "rev-parse", "tether/1") == old_tip
    assert git(repo, "ls-tree", "--name-only", "tether/1.2").splitlines() == [
        ".claude",
        "a.txt",
        "b.txt",
        "new.txt",
    ]
    assert board(repo, [])["tasks"][0]["metadata"]["run"]["worktree"]["branch"] == "tether/1.2"
    assert tether(repo, "worktrees", "merge", "tether/1.2").startswith("merged tether/1.2 into")
    assert git(repo, "rev-parse", "tether/1") == old_tip
