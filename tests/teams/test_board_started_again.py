"""A board that comes back empty (Redis restarted without its data) gives out task ids and
fences from the start again: a new task #1 is another task than the #1 a worker still runs,
and nothing of one may be taken for the other (its claim, its worktree, its branch). The
worker that ran on the lost board says so and stops (exit 2): nothing reports success."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import pytest

from tether.store.task_store import open_task_store
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.recorded import content_text
from tether.testing.redis_server import RedisServer, RedisUnavailable
from tether.testing.workers import task_answers

from .conftest import git
from .test_worker_worktrees import allow_writes, step, trusted
from .workers import add_tasks, board, finish, read_lines, start_worker, wait_for


def start_redis() -> RedisServer:
    try:
        return RedisServer.start()
    except RedisUnavailable as e:
        pytest.skip(str(e))


def _subject(request: RecordedRequest) -> str:
    return content_text(request.messages()[0]["content"])


def test_an_old_claim_cannot_complete_the_new_task_given_its_id_and_fence(
    repo: Path, model_env: FakeModelServer
) -> None:
    redis = start_redis()
    team = f"r-{uuid.uuid4().hex[:8]}"
    store = ["--store", redis.url, "--team", team]
    gate = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        gate.wait(timeout=300)
        return text(f"old result of task {task_id}")

    model_env.responder = task_answers(answer)
    try:
        add_tasks(repo, store, "old task")
        worker = start_worker(repo, "--until-idle", *store)
        wait_for(lambda: len(model_env.requests) == 1, "the old task's first model call")
        redis.kill()
        redis = RedisServer.start(port=redis.port)  # empty: nothing was saved
        add_tasks(repo, store, "new task")  # #1 again
        other = open_task_store(redis.url, project=repo, team=team)
        try:
            claim = other.claim_next("someone")  # fence 1 again, as the old claim's
        finally:
            other.close()
        assert claim is not None
        assert claim.task.id == "1"
        gate.set()
        code, out, err = finish(worker)
        new = open_task_store(redis.url, project=repo, team=team)
        try:
            after = new.get("1")
        finally:
            new.close()
    finally:
        gate.set()
        redis.stop()
    assert code == 2, err
    assert "Traceback" not in err
    assert (after.subject, after.status, after.owner) == ("new task", "in_progress", "someone")
    assert "was holding task #1 (old task): nothing was recorded for it" in out
    assert f"the board of team '{team}' at {redis.url} lost its data (its epoch key is " in err
    assert "completed #1" not in out


def test_a_new_task_of_an_old_id_waits_for_the_old_run_and_keeps_off_its_worktree_and_branch(
    repo: Path, model_env: FakeModelServer
) -> None:
    redis = start_redis()
    allow_writes(repo)
    team = f"w-{uuid.uuid4().hex[:8]}"
    store = ["--store", redis.url, "--team", team]
    gate = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        which = "old" if "old task" in _subject(request) else "new"
        if step(request) == 0:
            path = repo / ".tether/worktrees" / team / "1" / f"{which}.txt"
            return tool_use("Write", file_path=str(path), content=f"{which}\n")
        if which == "old":
            gate.wait(timeout=300)
        return text(f"{which} work done")

    model_env.responder = task_answers(answer)
    old_worker = None
    try:
        add_tasks(repo, store, "old task")
        old_worker = start_worker(repo, "--until-idle", "--worktrees", *store, env=trusted())
        wait_for(lambda: len(model_env.requests) == 2, "the old task's file written")
        redis.kill()
        redis = RedisServer.start(port=redis.port)  # empty: ids and fences start again
        add_tasks(repo, store, "new task")
        other = open_task_store(redis.url, project=repo, team=team)
        try:  # the new #1's next claim gets a fence above the old claim's
            for _ in range(2):
                held = other.claim_next("someone")
                assert held is not None
                other.release(held)
        finally:
            other.close()
        new_worker = start_worker(repo, "--until-idle", "--worktrees", *store, env=trusted())
        lines = read_lines(new_worker)
        wait_for(lambda: any("gave #1 back" in line for line in lines), "the new task to wait")
        gate.set()
        old_code, old_out, old_err = finish(old_worker)
        new_code, _, new_err = finish(new_worker)  # either worker may run the new task
        tasks = board(repo, store)["tasks"]
    finally:
        gate.set()
        if old_worker is not None and old_worker.poll() is None:
            old_worker.kill()
        redis.stop()
    out = "".join(lines) + old_out
    assert old_code == 2, old_err
    assert "lost its data" in old_err
    assert new_code == 0, new_err
    assert "held by a run of another task of the same id" in out
    assert "attempt not counted" in out
    assert "process(es)" not in out + old_out  # the old run's commands were left alone
    assert f"was holding task #1 (old task), its work committed on tether/{team}/1" in old_out
    assert [(t["subject"], t["status"], t["attempts"]) for t in tasks] == [
        ("new task", "completed", 1)
    ]
    # The old run's work is on tether/<team>/1, the new task's on a branch of its own.
    assert git(repo, "show", f"tether/{team}/1:old.txt") == "old"
    assert "new.txt" not in git(repo, "ls-tree", "--name-only", f"tether/{team}/1")
    assert git(repo, "show", f"tether/{team}/1.2:new.txt") == "new"
    assert "old.txt" not in git(repo, "ls-tree", "--name-only", f"tether/{team}/1.2")
