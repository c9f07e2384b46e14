"""Claiming across real processes: 8 claimers on one board take every task exactly once, and
a claimer killed mid-task loses nothing (its task is claimed again once the lease is over)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from tether.store.task_records import NewTask
from tether.store.task_store import TaskStore

from .task_stores import OpenStore

CLAIMERS = 8
TASKS = 400


def claimer(url: str, team: str, owner: str, project: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tether.testing.claimers",
            url,
            team,
            owner,
            "--project",
            str(project),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def test_eight_processes_claim_each_task_once(
    store: TaskStore, store_url: str, team: str, tmp_path: Path
) -> None:
    for n in range(TASKS):
        store.create(NewTask(subject=f"task {n}", priority=("high", "medium", "low")[n % 3]))
    procs = [claimer(store_url, team, f"w{n}", tmp_path / "project") for n in range(CLAIMERS)]
    lines: list[dict[str, object]] = []
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        lines.extend(json.loads(line) for line in out.splitlines())
    claimed = Counter(line["claimed"] for line in lines if "claimed" in line)
    assert [line["outcome"] for line in lines if "claimed" in line] == ["completed"] * TASKS
    assert set(claimed.values()) == {1}, "a task was claimed twice"
    assert len(claimed) == TASKS, "a task was lost"
    tasks = store.list()
    assert Counter(t.status for t in tasks) == {"completed": TASKS}
    assert {t.attempts for t in tasks} == {1}
    assert len({t.fence for t in tasks}) == TASKS
    assert sum(1 for line in lines if "claimed" in line) == sum(
        int(line["done"])
        for line in lines
        if "done" in line  # type: ignore[arg-type]
    )


def test_a_killed_claimers_task_is_claimed_again_after_its_lease(
    open_store: OpenStore, store_url: str, team: str, tmp_path: Path
) -> None:
    store = open_store()
    task_id = store.create(NewTask(subject="survives a crash")).id
    holder = claimer(store_url, team, "doomed", tmp_path / "project", "--hold", "--lease", "1")
    assert holder.stdout is not None
    first = json.loads(holder.stdout.readline())
    assert first["claimed"] == task_id
    os.killpg(holder.pid, signal.SIGKILL)
    holder.communicate()
    # Nothing else can take it while the lease holds; once it ran out, a claimer gets it.
    heir = open_store()
    successor = None
    while successor is None:
        time.sleep(0.05)
        successor = heir.claim_next("heir", lease_s=60)
    assert successor.task_id == task_id
    assert successor.fence > first["fence"]
    store.complete(successor, "done once")
    task = store.get(task_id)
    assert (task.status, task.attempts, task.result, task.owner) == (
        "completed",
        2,
        "done once",
        "heir",
    )
