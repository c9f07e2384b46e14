"""Two hosts on one machine: Redis in a network namespace of its own, reached over a veth
pair, and the workers (with the fake model) on the other side. Skipped, saying why, where
namespaces cannot be made (not root, no `ip`, no permission in a container)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.testing import FakeModelServer
from tether.testing.workers import done_text, task_answers

from .workers import add_tasks, board, finish, sessions_per_task, start_worker, wait_for


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30, check=False)


def _answers(host: str, port: int) -> bool:
    """Whether the server answers, asked from this side of the veth pair (by a process of
    its own: this test process keeps to loopback)."""
    probe = f"import socket; socket.create_connection(({host!r}, {port}), timeout=1).close()"
    return (
        subprocess.run([sys.executable, "-c", probe], capture_output=True, check=False).returncode
        == 0
    )


@pytest.fixture
def redis_host(tmp_path: Path) -> Iterator[str]:
    """A Redis server in a namespace of its own; its URL over the veth pair."""
    if shutil.which("ip") is None or shutil.which("redis-server") is None:
        pytest.skip("two-host test: needs `ip` (iproute2) and redis-server")
    if os.geteuid() != 0:
        pytest.skip("two-host test: making network namespaces needs root")
    tag = uuid.uuid4().hex[:6]
    namespace, here, there = f"tether-{tag}", f"tw{tag}a", f"tw{tag}b"
    subnet = f"10.{random.randint(100, 250)}.{random.randint(0, 250)}"
    made = _ip("netns", "add", namespace)
    if made.returncode != 0:
        pytest.skip(f"two-host test: cannot make a network namespace: {made.stderr.strip()}")
    redis: subprocess.Popen[bytes] | None = None
    try:
        for step in (
            ["link", "add", here, "type", "veth", "peer", "name", there],
            ["link", "set", there, "netns", namespace],
            ["addr", "add", f"{subnet}.1/30", "dev", here],
            ["link", "set", here, "up"],
            ["netns", "exec", namespace, "ip", "addr", "add", f"{subnet}.2/30", "dev", there],
            ["netns", "exec", namespace, "ip", "link", "set", there, "up"],
            ["netns", "exec", namespace, "ip", "link", "set", "lo", "up"],
        ):
            done = _ip(*step)
            if done.returncode != 0:
                pytest.skip(f"two-host test: ip {' '.join(step)}: {done.stderr.strip()}")
        port = 6379
        redis = subprocess.Popen(
            [
                "ip", "netns", "exec", namespace, "redis-server", "--port", str(port),
                "--bind", f"{subnet}.2", "--save", "", "--appendonly", "no",
                "--protected-mode", "no", "--dir", str(tmp_path),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        wait_for(lambda: _answers(f"{subnet}.2", port), "redis in the other namespace")
        yield f"redis://{subnet}.2:{port}/0"
    finally:
        if redis is not None:
            os.killpg(redis.pid, signal.SIGKILL)
            redis.wait()
        _ip("link", "del", here)
        _ip("netns", "del", namespace)


def test_workers_on_one_host_share_a_board_on_another(
    repo: Path, model_env: FakeModelServer, redis_host: str
) -> None:
    model_env.responder = task_answers(done_text)
    store = ["--store", redis_host, "--team", "far"]
    add_tasks(repo, store, *(f"t{n}" for n in range(1, 9)))
    add_tasks(repo, store, "last", after=[str(n) for n in range(1, 9)])
    code, out, err = finish(start_worker(repo, "--count", "4", "--until-idle", *store))
    assert code == 0, err
    assert f"working on team 'far' ({redis_host})" in out
    snapshot = board(repo, store)
    assert snapshot["store"] == redis_host
    assert snapshot["counts"]["completed"] == 9
    assert sessions_per_task(model_env) == {str(n): 1 for n in range(1, 10)}
