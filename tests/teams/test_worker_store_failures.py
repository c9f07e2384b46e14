"""A worker whose store fails for good: a SQLite file damaged under it stops it at once, with
the file named and what to do (no "retrying", no false "answers again"); a stop (Ctrl+C)
while the store is down is honoured without waiting for the store."""

from __future__ import annotations

import signal
import sqlite3
import threading
from pathlib import Path

import pytest

from tether.store.task_store import default_store_path
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.redis_server import RedisServer, RedisUnavailable
from tether.testing.workers import is_first_call, task_answers

from .conftest import git
from .test_worker_worktrees import allow_writes, trusted, worktree_of
from .workers import add_tasks, finish, read_lines, start_worker, wait_for


def damage(path: Path) -> None:
    """What a disk fault or a stray write does: the file's pages overwritten with junk (its
    log checkpointed first, so that the junk is what SQLite reads next)."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    path.write_bytes(b"\x5a\xa5" * 4096)


def test_a_damaged_sqlite_store_stops_the_worker_naming_the_file(
    repo: Path, model_env: FakeModelServer
) -> None:
    allow_writes(repo)
    asked = threading.Event()
    go_on = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if is_first_call(request):
            tree = worktree_of(repo, request)
            return tool_use("Write", file_path=str(tree / "work.txt"), content="kept\n")
        asked.set()
        go_on.wait(timeout=300)
        return text(f"done task {task_id}")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "one", "two")
    worker = start_worker(repo, "--until-idle", "--worktrees", env=trusted())
    try:
        wait_for(asked.is_set, "the session to have written its file")
        path = default_store_path(repo)
        damage(path)
    finally:
        go_on.set()
    code, out, err = finish(worker)
    assert code == 2, (out, err)
    assert "retrying with backoff" not in out
    assert "answers again" not in out
    assert err.count("tether: error: ") == 1
    assert f"{path} is not a usable task store (file is not a database)" in err
    assert "restore it from a copy, or move it away to start an empty one" in err
    assert "was holding task #1 (one), its work committed on tether/1: nothing was recorded" in out
    assert git(repo, "show", "tether/1:work.txt") == "kept"


def test_a_sqlite_store_moved_away_stops_the_worker_naming_the_file(
    repo: Path, model_env: FakeModelServer
) -> None:
    """What the damaged-store message advises (move it away) done under a running worker: it
    does not go on working on the moved file, unseen by `tether tasks`."""
    asked = threading.Event()
    go_on = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        asked.set()
        go_on.wait(timeout=300)
        return text(f"done task {task_id}")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "one", "two")
    worker = start_worker(repo)  # not --until-idle: it would otherwise wait for ever
    path = default_store_path(repo)
    moved = path.with_name("tasks.db.bak")
    try:
        wait_for(asked.is_set, "the session to have been asked")
        path.rename(moved)
    finally:
        go_on.set()
    code, out, err = finish(worker)
    assert code == 2, (out, err)
    assert err.count("tether: error: ") == 1
    assert f"the task store {path} was deleted or moved away since this process opened it" in err
    assert "was holding task #1 (one): nothing was recorded" in out
    assert "completed" not in out
    assert not path.exists()  # not made again
    assert moved.exists()


def test_the_first_stop_is_honoured_while_the_store_is_down(
    repo: Path, model_env: FakeModelServer
) -> None:
    try:
        redis = RedisServer.start()
    except RedisUnavailable as e:
        pytest.skip(str(e))
    store = ["--store", redis.url]
    model_env.responder = task_answers(lambda task_id, _: text(f"done task {task_id}"))
    try:
        add_tasks(repo, store, "one")
        worker = start_worker(repo, *store)
        lines = read_lines(worker)
        wait_for(lambda: any("completed #1" in line for line in lines), "the task to be done")
        redis.kill()
        wait_for(lambda: any("retrying with backoff" in line for line in lines), "the outage")
        worker.send_signal(signal.SIGINT)  # once
        code, out, err = finish(worker)
    finally:
        redis.stop()
    assert code == 128 + signal.SIGINT, err
    said = "".join(lines) + out  # the reader thread and `finish` share the stream
    assert "stopped while the task store was unavailable: task store redis://" in said
    assert "Traceback" not in err
