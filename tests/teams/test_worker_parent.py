"""`tether worker --count N` killed with SIGKILL: its worker processes do not run on without
it; each stops as on SIGTERM and gives its task back."""

from __future__ import annotations

import os
import re
import signal
import threading
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text
from tether.testing.workers import task_answers

from .workers import add_tasks, board, start_worker, wait_for

_OWNER = re.compile(r"^worker-(\d+)@\S+: working on team ", re.MULTILINE)


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for init to reap it does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_workers_stop_when_their_parent_is_killed(repo: Path, model_env: FakeModelServer) -> None:
    release = threading.Event()

    def held(task_id: str, request: RecordedRequest) -> Turn:
        release.wait(timeout=300)
        return text(f"done task {task_id}")

    model_env.responder = task_answers(held)
    add_tasks(repo, [], "one", "two")
    parent = start_worker(repo, "--count", "2")
    assert parent.stdout is not None
    seen = ""  # the workers write to the parent's stdout, which they inherit
    children: list[int] = []
    try:
        while len(children) < 2:
            line = parent.stdout.readline()
            assert line, "the workers said who they are"
            seen += line
            children = [int(pid) for pid in _OWNER.findall(seen)]
        wait_for(lambda: len(model_env.requests) == 2, "both tasks' first model calls")
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        wait_for(lambda: not any(map(running, children)), "the workers to stop")
    finally:
        release.set()
        if parent.poll() is None:  # the test failed before its kill: no worker outlives it
            parent.kill()
        for pid in children:
            if running(pid):
                os.killpg(pid, signal.SIGKILL)
        rest, _ = parent.communicate()  # the workers' pipe ends are closed: it ends
    out = seen + rest
    assert out.count("the parent tether worker is gone: stopping") == 2
    assert out.count("back to the board (the parent tether worker is gone)") == 2
    tasks = board(repo, [])["tasks"]
    assert [(t["status"], t["attempts"], t["owner"]) for t in tasks] == [("pending", 0, None)] * 2


def test_a_worker_killed_by_a_signal_is_said_by_its_parent(
    repo: Path, model_env: FakeModelServer
) -> None:
    """SIGKILL (or the OOM killer) of one of `--count N`'s workers: the parent names it, the
    signal and the task it held, and its exit code is 128+9, not the raw status."""
    asked = threading.Event()
    release = threading.Event()
    calls: list[str] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        calls.append(task_id)
        if len(calls) == 1:  # the first attempt hangs until its worker is killed
            asked.set()
            release.wait(timeout=300)
        return text(f"done task {task_id}")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "one")
    parent = start_worker(repo, "--count", "2", "--until-idle", "--lease", "1")
    try:
        wait_for(asked.is_set, "the first attempt's model call")
        owner = board(repo, [])["tasks"][0]["owner"]
        holder = int(re.fullmatch(r"worker-(\d+)@\S+", owner)[1])  # type: ignore[index]
        os.kill(holder, signal.SIGKILL)
    finally:
        release.set()
    out, err = parent.communicate(timeout=120)
    assert parent.returncode == 128 + signal.SIGKILL, (out, err)
    assert (
        f"tether worker: {owner} died (SIGKILL), holding task #1 (one): it goes back to the "
        "board once its lease runs out" in out
    )
    assert out.rstrip().endswith(
        f"tether worker: 1 of 2 worker(s) died by a signal: {owner} (SIGKILL)"
    )
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"]) == ("completed", 2)  # taken over by the other
