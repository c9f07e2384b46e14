"""8 processes claiming 2,000 tasks from one board, SQLite and Redis side by side.

Each process (`tether.testing.claimers`) claims the next task and completes it at once until
the board is empty: the figures are the stores' own (a claim and a fenced completion per
task), with no model. Reported per store: claims per second over the whole run, double
claims (a task claimed by two processes), lost tasks (never completed), and the wall time.
Redis is a real `redis-server` started here on 127.0.0.1; without one its row says why.

    .venv/bin/python bench/tasks_bench.py  [BENCH_TASKS=2000 BENCH_CLAIMERS=8]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

from tether.store.task_records import NewTask
from tether.store.task_store import open_task_store
from tether.testing.redis_server import RedisServer, RedisUnavailable

TASKS = int(os.environ.get("BENCH_TASKS", "2000"))
CLAIMERS = int(os.environ.get("BENCH_CLAIMERS", "8"))


def run_store(url: str | None, project: Path) -> dict[str, float]:
    team = f"bench-{uuid.uuid4().hex[:8]}"
    store = open_task_store(url, project=project, team=team)
    for n in range(TASKS):
        store.create(NewTask(subject=f"task {n}", priority=("high", "medium", "low")[n % 3]))
    store_arg = url or str(project / ".tether" / "tasks.db")
    started = time.perf_counter()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tether.testing.claimers",
                store_arg,
                team,
                f"w{n}",
                "--project",
                str(project),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(CLAIMERS)
    ]
    lines = []
    for proc in procs:
        out, _ = proc.communicate()
        lines.extend(json.loads(line) for line in out.splitlines())
    wall = time.perf_counter() - started
    claims = Counter(line["claimed"] for line in lines if "claimed" in line)
    completed = sum(1 for t in store.list() if t.status == "completed")
    store.close()
    return {
        "claims_per_s": sum(claims.values()) / wall,
        "double_claims": sum(n - 1 for n in claims.values() if n > 1),
        "lost": TASKS - completed,
        "wall_s": wall,
    }


def main() -> dict[str, dict[str, float] | str]:
    results: dict[str, dict[str, float] | str] = {}
    with tempfile.TemporaryDirectory(prefix="tether-tasks-bench-") as tmp:
        results["sqlite"] = run_store(None, Path(tmp))
        try:
            server = RedisServer.start()
        except RedisUnavailable as e:
            results["redis"] = str(e)
        else:
            try:
                results["redis"] = run_store(server.url, Path(tmp))
            finally:
                server.stop()
    return results


def report(results: dict[str, dict[str, float] | str]) -> None:
    print(f"task board: {CLAIMERS} processes claiming {TASKS:,} tasks (claim + fenced completion)")
    print(f"  {'store':<8} {'claims/s':>9} {'double claims':>14} {'lost':>5} {'wall':>8}")
    for name, row in results.items():
        if isinstance(row, str):
            print(f"  {name:<8} skipped: {row}")
            continue
        print(
            f"  {name:<8} {row['claims_per_s']:>9,.0f} {row['double_claims']:>14.0f} "
            f"{row['lost']:>5.0f} {row['wall_s']:>7.2f}s"
        )
    rows = [r for r in results.values() if not isinstance(r, str)]
    if len(rows) == 2:
        ratio = rows[1]["claims_per_s"] / rows[0]["claims_per_s"]
        print(f"  Redis / SQLite claims per second: {ratio:.2f}x")


if __name__ == "__main__":
    report(main())
