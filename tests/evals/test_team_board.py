"""`tether eval --team`: the runs posted on a team's board, run by `tether eval worker`
processes (as on other machines), collected into one report."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.evals.conftest import SAMPLE_SUITE, results
from tether.store.task_store import open_task_store
from tether.testing import FakeModelServer


def _tether(*argv: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", *argv],
        cwd=cwd,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A SQLite file, or the run's Redis server (each test's team is its own there)."""
    if request.param == "sqlite":
        return str(tmp_path / "board.db")
    return str(request.getfixturevalue("redis_url"))


def test_workers_run_the_posted_cases_and_the_poster_reports_them(
    eval_model: FakeModelServer, tmp_path: Path, store_url: str
) -> None:
    team = f"evals-{uuid.uuid4().hex[:8]}"
    board = ("--team", team, "--store", store_url)
    poster = _tether("eval", str(SAMPLE_SUITE), *board, "--out", "out", cwd=tmp_path)
    assert poster.stderr is not None
    posted = poster.stderr.readline()  # said once every run is on the board
    assert posted.startswith(f"posted 4 run(s) on team '{team}' (tasks #1, #2, #3, #4)"), posted
    workers = [
        _tether("eval", "worker", *board, "--exit-when-idle", "--parallel", "2", cwd=tmp_path)
        for _ in range(2)
    ]
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
    out, err = poster.communicate(timeout=300)
    assert poster.returncode == 0, err
    body = results(tmp_path / "out")
    runs = body["runs"]
    assert [(r["case"], r["passed"], r["tool_calls"]) for r in runs] == [
        (case, True, {"Read": 1, "Write": 1})
        for case in ("sum-to-off-by-one", "adult-boundary", "word-count-split", "average-empty")
    ]
    owners = {f"eval-worker-{w.pid}@{socket.gethostname()}" for w in workers}
    for n, run in enumerate(runs, start=1):
        assert run["where"].startswith(f"team {team} task #{n} by eval-worker-")
        assert run["where"].rsplit(" ", 1)[1] in owners
        assert Path(run["transcript"]).is_file()
    assert runs[0]["judge"]["scores"]["accuracy"]["score"] == 4
    tasks = open_task_store(store_url, project=tmp_path, team=team).list()
    assert [(t.status, t.cost_usd > 0) for t in tasks] == [("completed", True)] * 4
    assert "sum-to-off-by-one" in out


def test_a_plain_task_on_the_board_is_given_back_and_named(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    store = tmp_path / "board.db"
    added = subprocess.run(
        [
            sys.executable,
            "-m",
            "tether",
            "tasks",
            "add",
            "write docs",
            "--team",
            "evals",
            "--store",
            str(store),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert added.returncode == 0, added.stderr
    worker = _tether("eval", "worker", "--team", "evals", "--store", str(store), cwd=tmp_path)
    _, err = worker.communicate(timeout=120)
    assert worker.returncode == 2
    assert err.strip().endswith(
        "tether eval worker: task #1 ('write docs') is not an evaluation run: evaluations need "
        "a team of their own, which plain workers do not serve"
    )
    (task,) = open_task_store(str(store), project=tmp_path, team="evals").list()
    assert (task.status, task.owner) == ("pending", None)


def test_a_runs_events_and_spend_are_the_workers_and_its_tasks(
    eval_model: FakeModelServer, tmp_path: Path
) -> None:
    board = ("--team", "evals", "--store", str(tmp_path / "board.db"))
    poster = _tether("eval", str(SAMPLE_SUITE), *board, "--out", "out", cwd=tmp_path)
    assert poster.stderr is not None
    assert poster.stderr.readline().startswith("posted 4 run(s)")  # the board is there now
    worker = _tether("eval", "worker", *board, "--exit-when-idle", cwd=tmp_path)
    _, err = worker.communicate(timeout=300)
    assert worker.returncode == 0, err
    _, err = poster.communicate(timeout=300)
    assert poster.returncode == 0, err
    owner = f"eval-worker-{worker.pid}@{socket.gethostname()}"  # as on the board's records

    cost = _tether("cost", "--by", "task", "--json", cwd=tmp_path)
    out, err = cost.communicate(timeout=60)
    assert cost.returncode == 0, err
    lines = json.loads(out)["lines"]
    # each task's run and its judge's (in a directory of its own: another project)
    assert {line["key"] for line in lines} == {"evals/1", "evals/2", "evals/3", "evals/4"}
    assert all(line["cost_usd"] > 0 for line in lines)

    tail = _tether("events", "tail", "--kind", "tool_finished", "-n", "100", "--json", cwd=tmp_path)
    out, err = tail.communicate(timeout=60)
    assert tail.returncode == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 8  # a Read and a Write a case
    assert {(r["agent_id"], r["task_id"]) for r in records} == {
        (owner, task) for task in ("1", "2", "3", "4")
    }

    # one worker, one agent id: the board's records and its runs' work under the same name
    tail = _tether("events", "tail", "--agent", owner, "-n", "1000", "--json", cwd=tmp_path)
    out, err = tail.communicate(timeout=60)
    assert tail.returncode == 0, err
    kinds = {json.loads(line)["kind"] for line in out.splitlines()}
    assert {"task_changed", "tool_finished"} <= kinds

    # and one line of spend, though each run and judge works in its own scratch directory
    cost = _tether("cost", "--by", "agent", "--json", cwd=tmp_path)
    out, err = cost.communicate(timeout=60)
    assert cost.returncode == 0, err
    lines = json.loads(out)["lines"]
    assert [line["key"] for line in lines] == [f"evals/{owner}"]
    assert lines[0]["cost_usd"] > 0
