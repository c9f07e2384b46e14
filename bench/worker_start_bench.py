"""What starting a worker costs: `tether worker --count N --until-idle` on N tasks that the fake
model answers at once, each worker forked from the parent that imported what a worker runs
(the default), against each a new `tether worker` process (`TETHER_SPAWN=1`, as before).
Reported per N and way, the best of `ROUNDS` runs taken in turn (the machine's load changes
under them): wall time from start to exit, CPU of all the processes (user + system), and per
worker; the load average beside them.

    .venv/bin/python bench/worker_start_bench.py
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fake_env import fake_env
from tether.testing import FakeModelServer
from tether.testing.workers import done_text, task_answers

COUNTS = (2, 4, 8)
ROUNDS = 3
WAYS = {"forked": {}, "spawned": {"TETHER_SPAWN": "1"}}


def _run(tmp: Path, count: int, way: str, round_no: int) -> tuple[float, float]:
    project = tmp / f"{way}-{count}-{round_no}"
    project.mkdir()
    with FakeModelServer() as fake:
        fake.responder = task_answers(done_text)
        env = {**os.environ, **fake_env(fake, tmp / "home"), **WAYS[way]}
        for n in range(count):
            subprocess.run(
                [sys.executable, "-m", "tether", "tasks", "add", f"part {n}"],
                cwd=project,
                env=env,
                check=True,
                capture_output=True,
            )
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "tether", "worker", "--count", str(count), "--until-idle"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("completed #") == count, done.stdout
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> dict[int, dict[str, tuple[float, float]]]:
    best: dict[int, dict[str, tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="tether-worker-start-") as tmp:
        for count in COUNTS:
            runs: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
            for round_no in range(ROUNDS):
                for way in WAYS:
                    runs[way].append(_run(Path(tmp), count, way, round_no))
            best[count] = {
                way: (min(w for w, _ in got), min(c for _, c in got)) for way, got in runs.items()
            }
    return best


def report(best: dict[int, dict[str, tuple[float, float]]]) -> None:
    print(
        f"worker start-up: --count N --until-idle on N tasks answered at once, best of {ROUNDS}"
        f" (load {os.getloadavg()[0]:.1f})"
    )
    print(f"  {'N':<3} {'way':<8} {'wall':>7} {'CPU':>7} {'CPU/worker':>11}")
    for count, ways in best.items():
        for way, (wall, cpu) in ways.items():
            print(f"  {count:<3} {way:<8} {wall:>6.2f}s {cpu:>6.2f}s {cpu / count:>10.2f}s")
        (fw, fc), (sw, sc) = ways["forked"], ways["spawned"]
        print(f"  {count:<3} spawned / forked: wall {sw / fw:.2f}x, CPU {sc / fc:.2f}x")


if __name__ == "__main__":
    report(main())
