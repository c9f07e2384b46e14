"""A board task's event is written in the transaction of its change (the board's outbox) and
delivered from there at least once, under an id readers drop a second delivery by: a process
SIGKILLed between the change's commit and its event, or between its event and the next
transaction (which takes it out of the outbox), leaves the event to the next process that
opens the board, and readers of the event log see it exactly once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tether.observe.records import log_files, read_records
from tether.protocol.team_events import TaskChanged
from tether.store.task_records import NewTask
from tether.store.task_store import open_task_store
from tether.teams.task_events import ObservedTasks
from tether.testing.cli_runner import run_cli_process

KILLED = """
import os, signal, sys
from pathlib import Path
from tether.cli.board_events import observed_store
from tether.store.task_records import NewTask
from tether.store.task_store import open_task_store
from tether.teams.task_events import ObservedTasks

url, team, project, step, when = sys.argv[1:]
opened = open_task_store(url, project=Path(project), team=team)
told, _ = observed_store(opened, "killed-1@here", project=Path(project), env=os.environ)

def emit(event):
    if when != "before":  # written to the log first: killed before the outbox forgets it
        told.emit(event)
    if when != "next":
        os.kill(os.getpid(), signal.SIGKILL)

store = ObservedTasks(opened, by="killed-1@here", emit=emit)
if step == "create":
    store.create(NewTask(subject="one"))
else:
    store.claim_next("killed-1@here")
os.kill(os.getpid(), signal.SIGKILL)  # "next": the step done and told, the next not begun
"""


@pytest.fixture(params=["sqlite", "redis"])
def board(request: pytest.FixtureRequest, repo: Path) -> tuple[str, str]:
    """The store URL and a team of the test's own."""
    if request.param == "sqlite":
        url = str(repo / ".tether" / "tasks.db")
    else:
        url = str(request.getfixturevalue("redis_url"))
    return url, f"t-{uuid.uuid4().hex[:12]}"


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "TETHER_HOME": str(tmp_path / "tether-home"), "HOME": str(tmp_path)}


def _killed(repo: Path, env: dict[str, str], url: str, team: str, step: str, when: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", KILLED, url, team, str(repo), step, when],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


def _tasks(repo: Path, env: dict[str, str], url: str, team: str, *argv: str) -> None:
    done = run_cli_process(["tasks", *argv, "--store", url, "--team", team], env=env, cwd=repo)
    assert done.exit_code == 0, done.stderr


def _told(env: dict[str, str], task_id: str, change: str) -> list[str]:
    """The ids of the events readers of the log see for this change of the task."""
    return [
        str(r.payload["event_id"])
        for r in read_records(Path(env["TETHER_HOME"]))
        if r.kind == "task_changed" and r.task_id == task_id and r.payload["change"] == change
    ]


def _lines(env: dict[str, str], event_id: str) -> int:
    """How often the log's files hold the event (a second delivery included)."""
    return sum(p.read_text().count(event_id) for p in log_files(Path(env["TETHER_HOME"])))


@pytest.mark.parametrize("step", ["create", "claim"])
@pytest.mark.parametrize("when", ["before", "after", "next"])
def test_an_event_a_killed_process_left_is_told_once_after_a_restart(
    repo: Path, tmp_path: Path, board: tuple[str, str], step: str, when: str
) -> None:
    url, team = board
    env = _env(tmp_path)
    if step == "claim":
        _tasks(repo, env, url, team, "add", "one")
    _killed(repo, env, url, team, step, when)
    change = "created" if step == "create" else "claimed"
    store = open_task_store(url, project=repo, team=team)
    try:
        assert store.get("1").status == ("pending" if step == "create" else "in_progress")
        left = store.pending_events()
        assert [(e.event.task_id, e.event.change) for e in left] == [("1", change)]
        assert _told(env, "1", change) == ([] if when == "before" else [left[0].id])
        assert [t.subject for t in store.list()] == ["one"]

        _tasks(repo, env, url, team, "add", "two")  # the next process to open the board

        assert _told(env, "1", change) == [left[0].id]
        assert _lines(env, left[0].id) == (1 if when == "before" else 2)
        assert store.pending_events() == []
        assert len(_told(env, "2", "created")) == 1
        assert [t.subject for t in store.list()] == ["one", "two"]  # nothing done twice
    finally:
        store.close()


@pytest.mark.parametrize("next_step", ["create", "claim"])
def test_a_told_event_leaves_the_outbox_in_the_next_transaction(
    repo: Path, board: tuple[str, str], next_step: str
) -> None:
    """Taking a told event out of the outbox is no transaction of its own: the next change
    (a claim script's too, on Redis) carries it, and closing the store does the last."""
    url, team = board
    told: list[str] = []
    store = ObservedTasks(
        open_task_store(url, project=repo, team=team),
        by="me",
        emit=lambda e: told.append(e.event_id if isinstance(e, TaskChanged) else ""),
    )
    try:
        store.create(NewTask(subject="one"))
        assert [e.id for e in store.pending_events()] == told  # told, still in the outbox
        if next_step == "create":
            store.create(NewTask(subject="two"))
        else:
            store.claim_next("me")
        assert [e.id for e in store.pending_events()] == told[1:]
    finally:
        store.close()
    after = open_task_store(url, project=repo, team=team)
    try:
        assert after.pending_events() == []
    finally:
        after.close()
    assert len(told) == len(set(told)) == 2


def test_each_change_leaves_the_outbox_once_told(
    repo: Path, tmp_path: Path, board: tuple[str, str]
) -> None:
    url, team = board
    env = _env(tmp_path)
    _tasks(repo, env, url, team, "add", "one")
    _tasks(repo, env, url, team, "rm", "1")
    store = open_task_store(url, project=repo, team=team)
    try:
        assert store.pending_events() == []
    finally:
        store.close()
    assert [len(_told(env, "1", c)) for c in ("created", "removed")] == [1, 1]


def test_an_event_left_by_a_live_process_or_another_machines_waits_for_it(
    repo: Path, board: tuple[str, str]
) -> None:
    """Left to its writer while it may still tell it: a process of this machine that runs,
    or one of another machine within `ABANDONED_AFTER_S`; one of this machine that no longer
    runs is told at once."""
    url, team = board
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    writers = {
        "running": f"{os.getppid()}@{socket.gethostname()}@",
        "elsewhere": "4242@another-machine@99",
        "ended": f"{gone.stdout.strip()}@{socket.gethostname()}@",
    }
    writing = open_task_store(url, project=repo, team=team)
    try:
        for name, writer in writers.items():
            writing.keep_events(name, writer)
            writing.create(NewTask(subject=name))  # committed, never told: as if killed
        told: list[str] = []
        ObservedTasks(
            open_task_store(url, project=repo, team=team),
            by="next",
            emit=lambda e: told.append(e.by if isinstance(e, TaskChanged) else ""),
        ).close()
        assert told == ["ended"]
        assert [e.event.by for e in writing.pending_events()] == ["running", "elsewhere"]
    finally:
        writing.close()
