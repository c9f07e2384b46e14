"""`tether worker` as real processes on one board, against the fake model server: many
workers, dependencies, worktrees, denials said in the result, stops and crashes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.recorded import content_text
from tether.testing.workers import done_text, task_answers, task_of

from .conftest import git, write
from .workers import (
    add_tasks,
    board,
    finish,
    read_lines,
    seed_tasks,
    sessions_per_task,
    start_worker,
    tether,
    wait_for,
)


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest) -> list[str]:
    """The project's SQLite file (no flag), or a team of its own on the run's Redis."""
    team = ["--team", f"w-{uuid.uuid4().hex[:10]}"]
    if request.param == "sqlite":
        return team
    return [*team, "--store", str(request.getfixturevalue("redis_url"))]


def test_eight_workers_run_each_task_once_and_the_dependent_last(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    model_env.responder = task_answers(done_text)
    seed_tasks(repo, store, *(f"part {n}" for n in range(1, 17)))
    seed_tasks(repo, store, "assemble", after=[str(n) for n in range(1, 17)])
    code, out, err = finish(start_worker(repo, "--count", "8", "--until-idle", *store))
    assert code == 0, err
    assert out.count(": working on team ") == 8
    snapshot = board(repo, store)
    tasks = {t["id"]: t for t in snapshot["tasks"]}
    assert snapshot["counts"] == {
        "in_progress": 0,
        "pending": 0,
        "blocked": 0,
        "failed": 0,
        "completed": 17,
    }
    assert {t["result"] for t in tasks.values()} == {f"done task {n}" for n in range(1, 18)}
    assert {t["attempts"] for t in tasks.values()} == {1}
    assert sessions_per_task(model_env) == {str(n): 1 for n in range(1, 18)}
    assemble = tasks["17"]
    assert assemble["started_at"] >= max(tasks[str(n)]["finished_at"] for n in range(1, 17))
    # Its session was told what the parts reported.
    first = next(r for r in model_env.requests if task_of(r) == "17")
    opening = content_text(first.messages()[0]["content"])
    assert "Task #16 (part 16), which this one depends on, reported:\ndone task 16" in opening
    assert all(t["cost_usd"] > 0 for t in tasks.values())
    # Each session was saved, and can be resumed by the id the task names.
    run = assemble["metadata"]["run"]
    assert run["worker"].startswith("worker-")
    shown = tether(repo, "tasks", "show", "17", *store)
    assert f"Session: {run['session_id']} (tether --resume {run['session_id']})" in shown
    resumed = run_resumed(repo, run["session_id"], model_env)
    assert resumed["session_id"] == run["session_id"]


def run_resumed(repo: Path, session_id: str, fake: FakeModelServer) -> dict[str, object]:
    fake.responder = None
    fake.script(text("still done"))
    out = tether(repo, "-p", "--resume", session_id, "--output-format", "json", "again?")
    return json.loads(out)


def worktree_turns(repo: Path) -> Turn:
    """A task's session that writes a file, reads git's state, tries to commit and to run a
    command no rule allows, then reports."""

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        steps = [
            tool_use(
                "Write",
                file_path=str(repo / ".tether/worktrees" / task_id / f"out-{task_id}.txt"),
                content=f"made by task {task_id}\n",
            ),
            tool_use("Bash", command="git status --short"),
            tool_use("Bash", command="git commit -qam 'from the agent'"),
            tool_use("Bash", command="rm -rf docs"),
        ]
        done = len(request.messages()) // 2
        return steps[done] if done < len(steps) else text(f"wrote out-{task_id}.txt")

    return task_answers(answer)


def test_worktrees_commit_each_task_on_its_branch_for_review(
    repo: Path, model_env: FakeModelServer
) -> None:
    write(
        repo / ".claude/settings.json",
        json.dumps(
            {"permissions": {"allow": ["Write", "Bash(git status *)", "Bash(git commit *)"]}}
        ),
    )
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "rules")
    model_env.responder = worktree_turns(repo)
    add_tasks(repo, [], "first", "second")
    env = {**os.environ, "TETHER_TRUST_WORKSPACE": "1"}
    code, _, err = finish(
        start_worker(repo, "--count", "2", "--until-idle", "--worktrees", env=env)
    )
    assert code == 0, err
    tasks = {t["id"]: t for t in board(repo, [])["tasks"]}
    for task_id in ("1", "2"):
        task = tasks[task_id]
        assert task["status"] == "completed", json.dumps(task, indent=1) + "\n" + err
        commit = git(repo, "rev-parse", f"tether/{task_id}")
        assert task["result"].startswith(
            f"wrote out-{task_id}.txt\n\nDenied (no rule allowed them; a worker cannot ask):\n"
            "- Bash(rm -rf docs): "
        )
        assert task["result"].endswith(f"Worktree: committed {commit[:12]} on tether/{task_id}")
        assert task["metadata"]["run"]["worktree"] == {
            "branch": f"tether/{task_id}",
            "commit": commit,
            "overlaps": [],
            "warnings": [],
        }
        assert git(repo, "show", f"tether/{task_id}:out-{task_id}.txt") == f"made by task {task_id}"
    # The agent read git's state in its worktree; its own commit was refused by the sandbox
    # (the worktree's metadata lives in the main .git, which only tether writes).
    results = [
        r.tool_results() for r in model_env.requests if task_of(r) == "1" and r.tool_results()
    ]
    assert results[1] == ["?? out-1.txt"]
    assert "Read-only file system" in results[2][0]
    assert git(repo, "log", "--format=%s", "tether/1").splitlines()[0] == "tether task 1: first"
    assert not (repo / ".tether/worktrees/1").exists()
    merged = tether(repo, "worktrees", "merge", "1")
    assert merged.startswith("merged tether/1 into main")
    assert (repo / "out-1.txt").read_text() == "made by task 1\n"


def held_model(first_task: str) -> tuple[threading.Event, Callable[..., Turn]]:
    """A model that holds the first request of `first_task` until the event is set."""
    release = threading.Event()
    held: list[bool] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if task_id == first_task and not held:
            held.append(True)
            release.wait(timeout=300)
        return text(f"done task {task_id}")

    return release, task_answers(answer)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_gives_the_task_back_uncounted(
    repo: Path, model_env: FakeModelServer, signum: signal.Signals
) -> None:
    """SIGTERM, and SIGHUP (the terminal closed): the session stopped and saved, the task
    given back uncounted, status 128+N."""
    release, model_env.responder = held_model("1")
    add_tasks(repo, [], "slow")
    worker = start_worker(repo)
    try:
        wait_for(lambda: len(model_env.requests) == 1, "the task's first model call")
        worker.send_signal(signum)
        code, out, _ = finish(worker)
    finally:
        release.set()
    assert code == 128 + signum
    assert f"gave #1 back to the board (stopped by {signum.name})" in out
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"], task["owner"]) == ("pending", 0, None)


def test_a_worker_killed_mid_task_has_its_task_completed_once_by_another(
    repo: Path, model_env: FakeModelServer
) -> None:
    release, model_env.responder = held_model("1")
    add_tasks(repo, [], "crashes once")
    doomed = start_worker(repo, "--lease", "1")
    try:
        wait_for(lambda: len(model_env.requests) == 1, "the task's first model call")
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.communicate()
        code, out, err = finish(start_worker(repo, "--lease", "1", "--until-idle"))
    finally:
        release.set()
    assert code == 0, err
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"], task["result"]) == ("completed", 2, "done task 1")
    assert not task["owner"].startswith(f"worker-{doomed.pid}@")
    assert out.count("completed #1 ") == 1


def test_a_lease_lost_mid_task_stops_the_session_and_drops_the_task(
    repo: Path, model_env: FakeModelServer
) -> None:
    release, model_env.responder = held_model("1")
    add_tasks(repo, [], "contested")
    paused = start_worker(repo, "--lease", "1")
    other: subprocess.Popen[str] | None = None
    try:
        wait_for(lambda: len(model_env.requests) == 1, "the task's first model call")
        paused.send_signal(signal.SIGSTOP)  # no heartbeats: its lease runs out
        other = subprocess.Popen(
            [sys.executable, "-m", "tether.testing.claimers", str(repo / ".tether/tasks.db"),
             "default", "other", "--project", str(repo), "--hold", "--lease", "600"],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert other.stdout is not None
        assert json.loads(other.stdout.readline())["claimed"] == "1"
        lines = read_lines(paused)
        paused.send_signal(signal.SIGCONT)
        wait_for(lambda: any("dropped #1" in line for line in lines), "the worker to drop #1")
        paused.send_signal(signal.SIGTERM)
        code, _, _ = finish(paused)
        out = "".join(lines)
    finally:
        release.set()
        if other is not None:
            other.kill()
            other.communicate()
    assert code == 128 + signal.SIGTERM
    assert "completed #1" not in out
    assert "dropped #1: worker-" in out
    assert "no longer holds task #1 (its lease ran out" in out
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["owner"], task["attempts"]) == ("in_progress", "other", 2)


def test_a_task_can_ask_for_a_worktree_of_its_own(repo: Path, model_env: FakeModelServer) -> None:
    model_env.responder = task_answers(done_text)
    tether(repo, "tasks", "add", "isolated", "--isolation", "worktree")
    tether(repo, "tasks", "add", "in place")
    code, _, err = finish(start_worker(repo, "--until-idle"))
    assert code == 0, err
    isolated, in_place = board(repo, [])["tasks"]
    assert isolated["metadata"]["isolation"] == "worktree"
    assert isolated["result"] == "done task 1\n\nWorktree: no changes"
    assert isolated["metadata"]["run"]["worktree"]["commit"] is None
    assert in_place["result"] == "done task 2"
    assert "worktree" not in in_place["metadata"]["run"]


def test_a_session_that_cannot_be_built_stops_the_worker_and_gives_the_task_back(
    repo: Path, model_env: FakeModelServer
) -> None:
    add_tasks(repo, [], "never starts")
    keys = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")  # no model can be used: no key at all
    env = {k: v for k, v in os.environ.items() if k not in keys}
    code, _, err = finish(start_worker(repo, "--until-idle", env=env))
    assert code == 2
    assert err.startswith("tether: error: ")
    assert "API_KEY" in err
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"], task["owner"]) == ("pending", 0, None)


def test_a_settings_error_is_said_before_any_task_is_claimed(
    repo: Path, model_env: FakeModelServer
) -> None:
    add_tasks(repo, [], "never claimed")
    settings = repo / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"hooks": {"NoSuchEvent": []}}))
    code, out, err = finish(start_worker(repo, "--until-idle", "--trust-workspace"))
    assert code == 2
    assert err.startswith(f"tether: error: settings file {settings}: hooks.NoSuchEvent: unknown")
    assert "claimed" not in out
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"], task["owner"]) == ("pending", 0, None)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_to_the_parent_reaches_every_worker(
    repo: Path, model_env: FakeModelServer, signum: signal.Signals
) -> None:
    release = threading.Event()

    def held(task_id: str, request: RecordedRequest) -> Turn:
        release.wait(timeout=300)
        return text(f"done task {task_id}")

    model_env.responder = task_answers(held)
    add_tasks(repo, [], "one", "two")
    parent = start_worker(repo, "--count", "2")
    try:
        wait_for(lambda: len(model_env.requests) == 2, "both tasks' first model calls")
        parent.send_signal(signum)
        code, out, _ = finish(parent)
    finally:
        release.set()
    assert code == 128 + signum
    assert out.count(f"back to the board (stopped by {signum.name})") == 2
    tasks = board(repo, [])["tasks"]
    assert [(t["status"], t["attempts"]) for t in tasks] == [("pending", 0), ("pending", 0)]
