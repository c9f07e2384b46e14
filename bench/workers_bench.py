"""`tether worker` processes against the fake model: the reference design's scenario, and a
worker killed mid-task.

1. Six independent tasks and one that depends on all six; the fake model answers each request
   after 300 ms; one worker, then two (`--count 2 --until-idle`). Reported: wall time from
   start to exit (process start-up included), the board's span (first claim to last
   result), the ratio one / two, and whether the dependent started only after the six.
   Beside them, the CPU the worker processes used (user + system, all of them, start-up
   included) in all and per task, the load average, and the wait between the dependent
   becoming claimable (the last of the six finished) and its claim: on saturated cores, two
   processes cannot beat one by more than the CPU allows, whatever the model's latency.
2. A worker SIGKILLed while its task's model call is under way (lease 2 s): a second worker
   re-claims the task once the lease runs out and completes it. Reported: attempts, sessions
   opened on the task, completions, and seconds from the kill to the second claim.

    .venv/bin/python bench/workers_bench.py
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from fake_env import fake_env
from tether.testing import FakeModelServer, RecordedRequest, Turn, text
from tether.testing.workers import done_text, is_first_call, task_answers, task_of

LATENCY_S = 0.3
LEASE_S = 2.0


def _tether(project: Path, env: dict[str, str], *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tether", *argv],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return done.stdout


def _workers(project: Path, env: dict[str, str], *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", "worker", *argv],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _board(project: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    return json.loads(_tether(project, env, "board", "--json"))["tasks"]


def graph_run(count: int, tmp: Path) -> dict[str, float]:
    project = tmp / f"graph-{count}"
    project.mkdir()
    with FakeModelServer() as fake:
        fake.latency_s = LATENCY_S
        fake.responder = task_answers(done_text)
        env = {**os.environ, **fake_env(fake, tmp / f"home-{count}")}
        for n in range(1, 7):
            _tether(project, env, "tasks", "add", f"part {n}")
        deps = [arg for n in range(1, 7) for arg in ("--depends-on", str(n))]
        _tether(project, env, "tasks", "add", "assemble", *deps)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        proc = _workers(project, env, "--count", str(count), "--until-idle")
        proc.communicate(timeout=600)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tasks = {t["id"]: t for t in _board(project, env)}
    six = [tasks[str(n)] for n in range(1, 7)]
    last = tasks["7"]
    return {
        "wall_s": wall,
        "span_s": last["finished_at"] - min(t["started_at"] for t in six),
        "completed": sum(t["status"] == "completed" for t in tasks.values()),
        "dependent_after_six": float(last["started_at"] >= max(t["finished_at"] for t in six)),
        "cpu_s": cpu,
        "claim_wait_s": last["started_at"] - max(t["finished_at"] for t in six),
        "load": os.getloadavg()[0],
    }


def killed_run(tmp: Path) -> dict[str, float]:
    project = tmp / "killed"
    project.mkdir()
    release = threading.Event()
    first: list[float] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if not first:
            first.append(time.time())
            release.wait(timeout=600)
        return text(f"done task {task_id}")

    with FakeModelServer() as fake:
        fake.responder = task_answers(answer)
        env = {**os.environ, **fake_env(fake, tmp / "home-killed")}
        _tether(project, env, "tasks", "add", "crashes once")
        doomed = _workers(project, env, "--lease", str(LEASE_S))
        while not first:
            time.sleep(0.05)
        os.killpg(doomed.pid, signal.SIGKILL)
        killed_at = time.time()
        doomed.communicate()
        try:
            survivor = _workers(project, env, "--lease", str(LEASE_S), "--until-idle")
            out, _ = survivor.communicate(timeout=600)
        finally:
            release.set()
        sessions = sum(1 for r in fake.requests if task_of(r) == "1" and is_first_call(r))
    task = _board(project, env)[0]
    return {
        "attempts": task["attempts"],
        "sessions": sessions,
        "completions": out.count("completed #1 "),
        "status_completed": float(task["status"] == "completed"),
        "reclaimed_after_s": task["started_at"] - killed_at,
    }


def main() -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="tether-workers-bench-") as tmp:
        return {
            "one": graph_run(1, Path(tmp)),
            "two": graph_run(2, Path(tmp)),
            "killed": killed_run(Path(tmp)),
        }


def report(results: dict[str, dict[str, float]]) -> None:
    one, two, killed = results["one"], results["two"], results["killed"]
    print(
        f"workers: six independent tasks and one after all six, fake model {LATENCY_S * 1000:.0f}"
        " ms a request"
    )
    print(
        f"  {'workers':<8} {'wall':>8} {'board span':>11} {'completed':>10} {'dependent last':>15}"
    )
    for name, row in (("1", one), ("2", two)):
        print(
            f"  {name:<8} {row['wall_s']:>7.2f}s {row['span_s']:>10.2f}s {row['completed']:>10.0f}"
            f" {'yes' if row['dependent_after_six'] else 'NO':>15}"
        )
    print(
        f"  one / two workers: wall {one['wall_s'] / two['wall_s']:.2f}x, "
        f"board span {one['span_s'] / two['span_s']:.2f}x"
    )
    print(
        f"  {'workers':<8} {'CPU':>8} {'CPU/task':>9} {'CPU/wall':>9} {'dependent claimed':>18}"
        f" {'load':>5}"
    )
    for name, row in (("1", one), ("2", two)):
        print(
            f"  {name:<8} {row['cpu_s']:>7.2f}s {row['cpu_s'] / 7:>8.2f}s "
            f"{row['cpu_s'] / row['wall_s']:>8.2f}  {row['claim_wait_s'] * 1000:>11.0f} ms after"
            f" {row['load']:>5.1f}"
        )
    print(
        f"  a worker SIGKILLed mid-task (lease {LEASE_S:g} s): re-claimed "
        f"{killed['reclaimed_after_s']:.2f} s after the kill, attempts {killed['attempts']:.0f}, "
        f"sessions {killed['sessions']:.0f}, completed {killed['completions']:.0f} time(s)"
    )


if __name__ == "__main__":
    report(main())
