"""Workers through faults of the store: Redis killed mid-run and started again (workers wait
with backoff and carry on: nothing lost, nothing done twice), and Redis down at the start
(said, naming it; no fallback)."""

from __future__ import annotations

import os
import subprocess
import threading
import uuid
from pathlib import Path
from typing import IO

import pytest

from tether.store.task_store import open_task_store
from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text
from tether.testing.cli_runner import run_cli_process
from tether.testing.redis_server import RedisServer, RedisUnavailable
from tether.testing.workers import task_answers

from .workers import (
    WAIT_S,
    add_tasks,
    board,
    finish,
    sessions_per_task,
    start_worker,
    wait_for,
)


def test_redis_killed_mid_run_loses_nothing_and_does_nothing_twice(
    repo: Path, model_env: FakeModelServer
) -> None:
    try:
        redis = RedisServer.start(persist=True)
    except RedisUnavailable as e:
        pytest.skip(str(e))
    store = ["--store", redis.url, "--team", f"k-{uuid.uuid4().hex[:8]}"]
    gate = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if int(task_id) > 2:
            gate.wait(timeout=300)  # the rest wait for the outage
        return text(f"done task {task_id}")

    model_env.responder = task_answers(answer)
    try:
        add_tasks(repo, store, *(f"t{n}" for n in range(1, 11)))
        workers = start_worker(repo, "--count", "2", "--until-idle", *store)
        said = _Said(workers)
        watcher = open_task_store(redis.url, project=repo, team=store[-1])
        try:
            wait_for(
                lambda: (
                    sum(t.status == "completed" for t in watcher.list()) == 2
                    and sum(t.status == "in_progress" for t in watcher.list()) == 2
                ),
                "two tasks done and two under way",
            )
        finally:
            watcher.close()
        redis.kill()
        gate.set()  # the sessions end while the store is down: their results must wait
        wait_for(lambda: len(model_env.requests) >= 4, "both held sessions to be answered")
        # Back only once a worker met the outage (under load it could come back before).
        wait_for(lambda: "retrying with backoff" in said.out(), "a worker to wait for the store")
        redis = RedisServer.start(port=redis.port, workdir=redis.workdir, persist=True)
        code, out, err = said.finish()
        assert code == 0, err
        assert out.count("retrying with backoff") >= 1
        assert ".; retrying" not in out
        assert "answers again" in out
        tasks = board(repo, store)["tasks"]
        assert [(t["id"], t["status"], t["attempts"]) for t in sorted(tasks, key=_id)] == [
            (str(n), "completed", 1) for n in range(1, 11)
        ]
        assert sessions_per_task(model_env) == {str(n): 1 for n in range(1, 11)}
    finally:
        gate.set()
        redis.stop()


def _id(task: dict[str, object]) -> int:
    return int(str(task["id"]))


def test_redis_down_at_the_start_is_named(repo: Path, refused_port: int) -> None:
    port = refused_port
    done = run_cli_process(
        ["worker", "--store", f"redis://127.0.0.1:{port}/0", "--until-idle"], cwd=repo
    )
    assert done.exit_code == 2
    assert done.stderr.startswith(
        f"tether: error: cannot reach the task store at redis://127.0.0.1:{port}/0: "
    )


def test_bad_counts_and_leases_are_refused(repo: Path) -> None:
    for flag, value, said in (
        ("--count", "0", "argument --count: must be at least 1"),
        ("--count", "two", "argument --count: not a whole number: 'two'"),
        ("--lease", "-5", "argument --lease: must be more than 0"),
    ):
        done = run_cli_process(["worker", flag, value], cwd=repo)
        assert done.exit_code == 2
        assert done.stderr.splitlines()[-1] == f"tether worker: error: {said}"


def test_redis_restarted_empty_mid_task_is_said_lost_and_the_result_kept_in_the_output(
    repo: Path, model_env: FakeModelServer
) -> None:
    try:
        redis = RedisServer.start()
    except RedisUnavailable as e:
        pytest.skip(str(e))
    store = ["--store", redis.url, "--team", f"e-{uuid.uuid4().hex[:8]}"]
    gate = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        gate.wait(timeout=300)
        return text(f"done task {task_id}")

    model_env.responder = task_answers(answer)
    try:
        add_tasks(repo, store, "forgotten by the store")
        worker = start_worker(repo, "--until-idle", *store)
        wait_for(lambda: len(model_env.requests) == 1, "the task's first model call")
        redis.kill()
        redis = RedisServer.start(port=redis.port)  # empty: nothing was saved
        gate.set()
        code, out, err = finish(worker)
    finally:
        gate.set()
        redis.stop()
    assert code == 2, err
    assert "Traceback" not in err
    assert "lost its data (its epoch key is gone: the Redis server restarted" in err
    assert "dropped #1" not in out
    assert "#1's result, not recorded: done task 1" in out


def test_redis_back_without_its_data_stops_the_workers_saying_the_board_is_lost(
    repo: Path, model_env: FakeModelServer
) -> None:
    try:
        redis = RedisServer.start()
    except RedisUnavailable as e:
        pytest.skip(str(e))
    team = f"n-{uuid.uuid4().hex[:8]}"
    store = ["--store", redis.url, "--team", team]
    gate = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        gate.wait(timeout=300)
        return text(f"done task {task_id}")

    model_env.responder = task_answers(answer)
    try:
        add_tasks(repo, store, *(f"t{n}" for n in range(1, 5)))
        workers = start_worker(repo, "--count", "2", "--until-idle", *store)
        wait_for(lambda: len(model_env.requests) >= 2, "both workers' sessions under way")
        redis.kill()
        redis = RedisServer.start(port=redis.port)  # empty: nothing was kept
        gate.set()
        code, out, err = finish(workers)
    finally:
        gate.set()
        redis.stop()
    assert code == 2, (out, err)
    assert err.count(f"the board of team '{team}' at {redis.url} lost its data") == 2
    assert out.count(": nothing was recorded for it") == 2
    assert "completed #" not in out
    assert "dropped #" not in out
    assert "Traceback" not in err


def test_a_task_the_model_always_stalls_on_fails_after_a_few_give_backs(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(lambda _, __: reply(text("never said"), stall_after=1))
    add_tasks(repo, [], "the model hangs on it")
    env = {**os.environ, "TETHER_MODEL_IDLE_TIMEOUT_MS": "200", "TETHER_RETRY_DELAY_MS": "1"}
    code, out, err = finish(start_worker(repo, "--until-idle", env=env))
    assert code == 0, err
    assert out.count("gave #1 back to the board (attempt not counted)") == 2
    assert "failed #1" in out
    [task] = board(repo, [])["tasks"]
    assert (task["status"], task["attempts"]) == ("failed", 1)
    assert task["error"].startswith(
        "the model stalled on this task 3 times (each attempt given back, uncounted): "
    )
    assert "idle timeout; TETHER_MODEL_IDLE_TIMEOUT_MS raises it" in task["error"]


def test_the_worker_never_prints_the_stores_password(
    repo: Path, model_env: FakeModelServer
) -> None:
    """`working on team ... (redis://:***@...)`: the password stays out of the output, as in
    `tasks list` and `board`."""
    import redis as redis_client

    try:
        redis = RedisServer.start()
    except RedisUnavailable as e:
        pytest.skip(str(e))
    try:
        admin = redis_client.Redis.from_url(redis.url)
        admin.config_set("requirepass", "s3cret-word")
        admin.close()
        url = redis.url.replace("redis://", "redis://:s3cret-word@")
        store = ["--store", url, "--team", f"p-{uuid.uuid4().hex[:8]}"]
        code, out, err = finish(start_worker(repo, "--until-idle", *store))
    finally:
        redis.stop()
    assert code == 0, err
    assert ":***@127.0.0.1" in out + err
    assert "s3cret-word" not in out + err


class _Said:
    """What a worker prints, read as it comes (a test can wait for a line), then its end."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self._out: list[str] = []
        self._err: list[str] = []
        assert proc.stdout is not None
        assert proc.stderr is not None
        self._readers = [
            threading.Thread(target=self._read, args=(proc.stdout, self._out), daemon=True),
            threading.Thread(target=self._read, args=(proc.stderr, self._err), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream: IO[str], into: list[str]) -> None:
        for line in stream:
            into.append(line)

    def out(self) -> str:
        return "".join(self._out)

    def finish(self) -> tuple[int, str, str]:
        code = self.proc.wait(timeout=WAIT_S * 2)
        for reader in self._readers:
            reader.join()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        return code, self.out(), "".join(self._err)


@pytest.mark.parametrize(
    ("argv", "kind"),
    [
        (["worker", "--until-idle"], "task"),
        (["tasks", "list"], "task"),
        (["team", "status", "t"], "mailbox"),
    ],
)
def test_rediss_to_a_redis_without_tls_names_the_handshake(
    repo: Path, redis_url: str, argv: list[str], kind: str
) -> None:
    """`rediss://` to a server that speaks no TLS: the handshake fails within the connect
    timeout (it waited 30 s and more for a reply, then said "Timeout"), naming TLS."""
    tls_url = "rediss://" + redis_url.removeprefix("redis://")
    done = run_cli_process([*argv, "--store", tls_url], cwd=repo)
    assert (done.exit_code, done.stdout) == (2, ""), done.stderr
    address = tls_url.removeprefix("rediss://").rsplit("/", 1)[0]
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert f"store at {tls_url}: the TLS handshake with {address} failed (" in lines[0]
    assert f"the {kind} store" in lines[0]
    assert lines[0].endswith(
        "a Redis server without TLS answers rediss:// so (use redis:// for it), or its "
        "certificate is not trusted here"
    )
