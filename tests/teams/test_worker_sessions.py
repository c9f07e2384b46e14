"""A worker's session in a task worktree belongs to the project: it is listed with the
project's sessions (marked with its task and worktree) and resumed from the project; and the
main workspace's local files, which git does not carry into a worktree, apply to it."""

from __future__ import annotations

import json
from pathlib import Path

from tether.testing import FakeModelServer, text
from tether.testing.workers import done_text, task_answers

from .conftest import git, write
from .test_workers import run_resumed
from .workers import add_tasks, board, finish, start_worker, tether


def test_a_worktree_sessions_are_listed_and_resumed_with_the_projects(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(done_text)
    add_tasks(repo, [], "in a worktree")
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees"))
    assert code == 0, err
    session_id = board(repo, [])["tasks"][0]["metadata"]["run"]["session_id"]
    assert not (repo / ".tether/worktrees/1").exists()  # gone with its task
    listed = tether(repo, "sessions", "list")
    line = next(line for line in listed.splitlines() if session_id in line)
    assert line.endswith("  (task 1, worktree .tether/worktrees/1)")
    [shown] = json.loads(tether(repo, "sessions", "list", "--json"))
    assert (shown["session_id"], shown["cwd"]) == (
        session_id,
        str((repo / ".tether/worktrees/1").resolve()),
    )
    resumed = run_resumed(repo, session_id, model_env)
    assert resumed["session_id"] == session_id
    assert resumed["result"] == "still done"
    # Still one session in the project's list, the resumed one, now in the project itself.
    [again] = json.loads(tether(repo, "sessions", "list", "--json"))
    assert again["session_id"] == session_id


def test_the_main_workspaces_local_instructions_apply_in_a_worktree_and_nothing_twice(
    repo: Path, model_env: FakeModelServer
) -> None:
    write(repo / ".gitignore", "CLAUDE.local.md\nsub/CLAUDE.local.md\n")
    write(repo / "CLAUDE.md", "SHARED-RULE: checked in\n")
    write(repo / "sub/keep.txt", "x\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "instructions")
    write(repo / "CLAUDE.local.md", "LOCAL-RULE: mine, see @notes.md\n")
    write(repo / "notes.md", "IMPORTED-NOTE\n")  # untracked too: the main workspace's
    model_env.responder = task_answers(lambda task_id, request: text(f"done {task_id}"))
    add_tasks(repo, [], "in a worktree")
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees"))
    assert code == 0, err
    [request] = model_env.requests
    system = request.system()
    assert system.count("SHARED-RULE: checked in") == 1
    assert system.count("LOCAL-RULE: mine") == 1
    assert system.count("IMPORTED-NOTE") == 1


def test_a_worktree_session_has_the_main_workspaces_memory_and_local_servers(
    repo: Path, model_env: FakeModelServer
) -> None:
    write(repo / ".gitignore", ".tether/\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "ignore")
    write(repo / ".tether/memory.md", "MEMORY-NOTE: the main workspace's\n")
    local = {"mcpServers": {"mine": {"command": 5}}}  # read, and said to be unusable
    write(repo / ".tether/mcp.local.json", json.dumps(local))
    model_env.responder = task_answers(lambda task_id, request: text(f"done {task_id}"))
    add_tasks(repo, [], "in a worktree")
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees", "--trust-workspace"))
    assert code == 0, err
    [request] = model_env.requests
    assert request.system().count("MEMORY-NOTE: the main workspace's") == 1
    assert "mcp.local.json" in err
    assert "mine" in err
