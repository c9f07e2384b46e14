"""A worker cut off past its lease (paused, or its store unreachable) that nobody took the
task from: its finished work is recorded once, its spend kept; the fence decides, not the
clock."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tether.store.sqlite_tasks import SqliteTaskStore
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.workers import task_answers

from .test_workers import held_model
from .workers import add_tasks, board, finish, read_lines, start_worker, wait_for


def test_a_lease_that_lapsed_with_no_other_claim_still_records_the_work(
    repo: Path, model_env: FakeModelServer
) -> None:
    release, model_env.responder = held_model("1")
    add_tasks(repo, [], "cut off")
    worker = start_worker(repo, "--lease", "1", "--until-idle")
    try:
        wait_for(lambda: len(model_env.requests) == 1, "the task's first model call")
        worker.send_signal(signal.SIGSTOP)  # no heartbeats: its lease runs out
        wait_for(
            lambda: board(repo, [])["tasks"][0]["lease_expires_at"] < time.time(),
            "the lease to run out",
        )
        # Another worker looking for work reaps it back to the board; nobody claims it.
        store = SqliteTaskStore(repo / ".tether/tasks.db", "default")
        try:
            assert [t.id for t in store.reap_expired()] == ["1"]
        finally:
            store.close()
        assert board(repo, [])["tasks"][0]["status"] == "pending"
        worker.send_signal(signal.SIGCONT)
        release.set()
        code, out, err = finish(worker)
    finally:
        release.set()
        if worker.poll() is None:
            worker.send_signal(signal.SIGCONT)
            worker.kill()
            worker.communicate()
    assert code == 0, err
    assert "dropped #1" not in out
    assert out.count("completed #1 ") == 1
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"], task["result"]) == ("completed", 1, "done task 1")
    assert task["cost_usd"] > 0


def test_a_run_dropped_for_another_claim_keeps_its_spend_on_the_task(
    repo: Path, model_env: FakeModelServer
) -> None:
    release = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if len(request.messages()) == 1:
            return tool_use("Read", file_path=str(repo / "a.txt"))
        release.wait(timeout=300)
        return text("done")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "contested")
    paused = start_worker(repo, "--lease", "1")
    lines = read_lines(paused)
    other: subprocess.Popen[str] | None = None
    try:
        wait_for(lambda: len(model_env.requests) == 2, "the task's second model call")
        paused.send_signal(signal.SIGSTOP)  # no heartbeats: its lease runs out
        other = subprocess.Popen(
            [sys.executable, "-m", "tether.testing.claimers", str(repo / ".tether/tasks.db"),
             "default", "other", "--project", str(repo), "--hold", "--lease", "600"],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert other.stdout is not None
        assert json.loads(other.stdout.readline())["claimed"] == "1"
        paused.send_signal(signal.SIGCONT)
        wait_for(lambda: any("dropped #1" in line for line in lines), "the worker to drop #1")
        paused.send_signal(signal.SIGTERM)
        finish(paused)
    finally:
        release.set()
        if paused.poll() is None:
            paused.send_signal(signal.SIGCONT)
            paused.kill()
            paused.communicate()
        if other is not None:
            other.kill()
            other.communicate()
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["owner"]) == ("in_progress", "other")
    assert task["cost_usd"] > 0, "the dropped run's spend stays on the task"
