"""Running `tether worker` and `tether tasks` as real processes against the fake model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tether.store.task_records import NewTask
from tether.store.task_store import open_task_store
from tether.teams.membership import team_choice
from tether.testing import FakeModelServer
from tether.testing.cli_runner import run_cli_process
from tether.testing.workers import is_first_call, task_of

WAIT_S = 120.0
"""A bound on waiting for a process to reach a state: a failing test ends, a slow machine
still passes (nothing asserts a time)."""


def tether(repo: Path, *argv: str, env: dict[str, str] | None = None) -> str:
    done = run_cli_process(list(argv), env=env or dict(os.environ), cwd=repo, timeout_s=WAIT_S)
    assert done.exit_code == 0, done.stderr
    return done.stdout


def add_tasks(repo: Path, store: Sequence[str], *subjects: str, after: Sequence[str] = ()) -> None:
    for subject in subjects:
        deps = [arg for dep in after for arg in ("--depends-on", dep)]
        tether(repo, "tasks", "add", subject, *deps, *store)


def seed_tasks(repo: Path, store: Sequence[str], *subjects: str, after: Sequence[str] = ()) -> None:
    """`add_tasks` in this process, through the store the flags name (`--team`, `--store`),
    for a test whose subject is not `tether tasks add` (each command is a process to start)."""
    flags = dict(zip(store[::2], store[1::2], strict=True))
    choice = team_choice({}, os.environ, team=flags.get("--team"), store=flags.get("--store"))
    tasks = open_task_store(choice.store_url, project=repo, team=choice.team)
    try:
        for subject in subjects:
            tasks.create(NewTask(subject=subject, depends_on=list(after)))
    finally:
        tasks.close()


def board(repo: Path, store: Sequence[str]) -> dict[str, Any]:
    return json.loads(tether(repo, "board", "--json", *store))


def start_worker(
    repo: Path, *argv: str, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", "worker", *argv],
        cwd=repo,
        env=env or dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def read_lines(proc: subprocess.Popen[str]) -> list[str]:
    """The process's stdout lines as they come (a thread reads them); `finish` then returns
    an empty stdout."""
    lines: list[str] = []
    assert proc.stdout is not None
    stream = proc.stdout

    def read() -> None:
        for line in stream:
            lines.append(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=WAIT_S * 2)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"the worker did not finish:\n{out}\n{err}") from None
    return proc.returncode, out, err


def wait_for(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_S:g} s for {what}")
        time.sleep(0.05)


def sessions_per_task(fake: FakeModelServer) -> dict[str, int]:
    """How many sessions opened a turn on each task (1 each: nothing was done twice)."""
    counts: dict[str, int] = {}
    for request in fake.requests:
        task_id = task_of(request)
        if task_id is not None and is_first_call(request):
            counts[task_id] = counts.get(task_id, 0) + 1
    return counts
