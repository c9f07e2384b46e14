"""A task's session in a worktree reads its main workspace's settings, the local file git does
not carry too: the untrusted-workspace notice counts what those files declared (not the
worktree's checked-in copy alone), and the dirty-tree warning does not name a file the
session reads as it is in the main tree."""

from __future__ import annotations

import json
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.workers import task_answers

from .conftest import git, write
from .workers import add_tasks, board, finish, start_worker


def test_an_untrusted_worktree_session_counts_the_main_workspaces_settings(
    repo: Path, model_env: FakeModelServer
) -> None:
    write(repo / ".claude/settings.json", json.dumps({"permissions": {"allow": ["Write(a*)"]}}))
    git(repo, "add", ".claude/settings.json")
    git(repo, "commit", "-qm", "project settings")
    local = {"permissions": {"allow": ["Write", "Bash(ls)"], "deny": ["Write(bad*)"]}}
    write(repo / ".claude/settings.local.json", json.dumps(local))  # untracked

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if not request.tool_results():
            target = repo / ".tether/worktrees" / task_id / "any.txt"
            return tool_use("Write", file_path=str(target), content="x\n")
        return text(f"tried: {request.tool_results()[0][:80]}")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "write a file")
    code, out, err = finish(start_worker(repo, "--until-idle", "--worktrees"))
    assert code == 0, err
    assert (
        "tether: the workspace is not trusted: skipped 3 allow rules from 2 project files;" in err
    )
    assert "uncommitted change" not in out  # settings.local.json is read as it is
    # Its rules' warnings name the file read, not its place in the worktree (which git did
    # not make: the file is not tracked).
    said = "settings .claude/settings.local.json: permissions.deny[0]: the deny rule Write(bad*)"
    assert said in err
    assert "worktrees/1/.claude" not in err
    [task] = board(repo, [])["tasks"]
    # Every call was denied (nothing allowed it, nobody to ask): the task did nothing.
    assert (task["status"], "Write" in task["error"]) == ("failed", True)
    assert not (repo / ".tether/worktrees/1/any.txt").exists()


def test_a_change_the_worktree_misses_is_still_warned_beside_one_it_reads(
    repo: Path, model_env: FakeModelServer
) -> None:
    write(repo / "CLAUDE.local.md", "local notes\n")
    write(repo / "pkg/CLAUDE.local.md", "more local notes\n")
    write(repo / "b.txt", "changed, not committed\n")
    model_env.responder = task_answers(lambda task_id, _: text(f"done {task_id}"))
    add_tasks(repo, [], "isolated")
    code, out, err = finish(start_worker(repo, "--until-idle", "--worktrees"))
    assert code == 0, err
    assert "the main worktree has 1 uncommitted change(s) (b.txt): task 1's worktree" in out
