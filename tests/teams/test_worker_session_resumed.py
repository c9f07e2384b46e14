"""A worker's task session resumed by a person (`tether -r ID`, or `-c` in the task's
worktree) is still on its board: the task tools see the board the worker worked on (its store
named by the worker, not by the person's environment), and its model calls are filed under
the task, on the board and in the ledger."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from tests.ledger.conftest import rows
from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text, tool_use
from tether.testing.teammates import mate_answers, polite
from tether.testing.workers import task_answers

from .mates import new_team, wait_state
from .workers import add_tasks, board, finish, start_worker, tether, wait_for

USAGE = {"input_tokens": 1000, "output_tokens": 50}


def _resumed_answers(request: RecordedRequest) -> Turn:
    if "look at the board" in request.last_user_text() and not request.tool_results():
        return reply(tool_use("TaskList"), usage=USAGE)
    return reply(text("seen"), usage=USAGE)


def test_a_resumed_task_session_works_on_its_board_and_files_its_spend_under_the_task(
    repo: Path, model_env: FakeModelServer, tmp_path: Path
) -> None:
    store = ["--store", str(tmp_path / "elsewhere.db")]  # not the project's own file
    model_env.responder = task_answers(lambda t, _r: reply(text(f"done {t}"), usage=USAGE))
    add_tasks(repo, store, "paint the zebra")
    code, _, err = finish(start_worker(repo, "--until-idle", *store))
    assert code == 0, err
    task = board(repo, store)["tasks"][0]
    session_id, worker_cost = task["metadata"]["run"]["session_id"], task["cost_usd"]
    assert worker_cost > 0

    model_env.responder = _resumed_answers
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_TEAM")}
    out = tether(
        repo,
        "-p",
        "--resume",
        session_id,
        "--output-format",
        "json",
        "look at the board",
        env=env,
    )
    assert json.loads(out)["session_id"] == session_id
    listed = model_env.requests[-1].tool_results()
    assert len(listed) == 1, listed
    assert "paint the zebra" in listed[0]

    task = board(repo, store)["tasks"][0]
    resumed_cost = task["cost_usd"] - worker_cost
    assert resumed_cost > 0  # the two calls of the resumed run
    calls = [c for c in rows("model_calls") if c["session_id"] == session_id]
    assert {(c["task_id"], c["team"]) for c in calls} == {("1", "default")}
    assert task["cost_usd"] == pytest.approx(sum(c["cost"] for c in calls))


def test_continue_in_a_task_worktree_continues_the_session_run_there(
    repo: Path, model_env: FakeModelServer
) -> None:
    """A worker killed mid-task leaves its worktree; `tether -c` there takes up the task's
    session (not the person's own newest one in the project), on the task."""
    model_env.script(text("hi"))
    mine = json.loads(tether(repo, "-p", "--output-format", "json", "hello"))["session_id"]
    release = threading.Event()

    def held(task_id: str, _request: RecordedRequest) -> Turn:
        release.wait(timeout=300)  # the killed run's call: never answered
        return reply(text(f"done {task_id}"))

    model_env.responder = task_answers(held)
    add_tasks(repo, [], "paint the zebra")
    doomed = start_worker(repo, "--worktrees")
    try:
        wait_for(lambda: len(model_env.requests) == 2, "the task's first call, in its worktree")
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.communicate()
    finally:
        release.set()

    model_env.responder = _resumed_answers
    worktree = repo / ".tether/worktrees/1"
    out = json.loads(tether(worktree, "-p", "-c", "--output-format", "json", "look at the board"))
    assert out["session_id"] != mine
    assert "paint the zebra" in model_env.requests[-1].tool_results()[0]
    calls = [c for c in rows("model_calls") if c["session_id"] == out["session_id"]]
    assert calls
    assert {c["task_id"] for c in calls} == {"1"}


def test_a_resumed_teammates_session_works_on_its_teams_board(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "tasks", "add", "paint the zebra", "--team", team)
    tether(repo, "team", "up", team, "--member", "alice")
    try:
        tether(repo, "team", "send", team, "alice", "hello")
        session_id = wait_state(repo, team, "alice", "idle")["session_id"]
    finally:
        tether(repo, "team", "down", team)

    model_env.responder = _resumed_answers
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_TEAM")}
    out = tether(
        repo, "-p", "--resume", session_id, "--output-format", "json", "look at the board", env=env
    )
    assert json.loads(out)["session_id"] == session_id
    assert "paint the zebra" in model_env.requests[-1].tool_results()[0]
