"""A worker's task sessions are in the ledger under their task's id; a teammate's under its
name."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.teams.workers import add_tasks, finish, start_worker
from tether.testing import FakeModelServer, RecordedRequest, reply, text
from tether.testing.cli_runner import CliResult
from tether.testing.script import Reply
from tether.testing.workers import task_answers

from .conftest import cost, cost_json, rows

Run = Callable[..., CliResult]


def _answer(task_id: str, request: RecordedRequest) -> Reply:
    return reply(
        text(f"done task {task_id}"),
        usage={"input_tokens": 100 * int(task_id), "output_tokens": 10},
    )


def test_each_task_is_counted_apart(tmp_path: Path, model_env: FakeModelServer) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "--quiet", "--initial-branch=main"], cwd=repo, check=True)
    model_env.responder = task_answers(_answer)
    add_tasks(repo, [], "first", "second")
    code, _, err = finish(start_worker(repo, "--until-idle"))
    assert code == 0, err

    sessions = rows("sessions", order="task_id")
    assert [s["task_id"] for s in sessions] == ["1", "2"]
    calls = rows("model_calls", order="task_id")
    assert [(c["task_id"], c["input_tokens"], c["session_id"]) for c in calls] == [
        ("1", 100, sessions[0]["session_id"]),
        ("2", 200, sessions[1]["session_id"]),
    ]
    # Under the worker's name, as the event log files them (not "main": --by agent split them).
    owners = {c["agent_id"] for c in calls}
    assert len(owners) == 1
    assert owners.pop().startswith("worker-")
    by_task = cost_json("--by", "task")
    assert {
        (line["key"], line["project"]): (line["calls"], line["input_tokens"])
        for line in by_task["lines"]
    } == {
        ("default/1", str(repo.resolve())): (1, 100),
        ("default/2", str(repo.resolve())): (1, 200),
    }


def test_a_teammates_spend_is_under_its_name(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_TEAMMATE", "alice")
    fake_model.script(reply(text("hi"), usage={"input_tokens": 40, "output_tokens": 2}))
    assert tether("-p", "hello").exit_code == 0
    assert [(c["agent_id"], c["input_tokens"]) for c in rows("model_calls")] == [("alice", 40)]
    by_agent = cost_json("--by", "agent")
    assert [(line["key"], line["calls"]) for line in by_agent["lines"]] == [("alice", 1)]


def _repo(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "--quiet", "--initial-branch=main"], cwd=path, check=True)
    return path.resolve()


def test_tasks_and_members_of_other_teams_and_projects_are_lines_of_their_own(
    tmp_path: Path, model_env: FakeModelServer
) -> None:
    # Task #1 of team alpha, #1 of team beta (same repository) and #1 of the default team of
    # another repository: three tasks, three lines, each naming its team and project.
    model_env.responder = task_answers(_answer)
    one, two = _repo(tmp_path / "one"), _repo(tmp_path / "two")
    for repo, team in ((one, "alpha"), (one, "beta"), (two, "default")):
        add_tasks(repo, ["--team", team], "first")
        code, _, err = finish(start_worker(repo, "--until-idle", "--team", team))
        assert code == 0, err

    lines = cost_json("--by", "task")["lines"]
    assert sorted((line["key"], line["project"], line["calls"]) for line in lines) == [
        ("alpha/1", str(one), 1),
        ("beta/1", str(one), 1),
        ("default/1", str(two), 1),
    ]
    only_one = cost_json("--by", "task", "--project", str(one))["lines"]
    assert sorted(line["key"] for line in only_one) == ["alpha/1", "beta/1"]
    agents = cost_json("--by", "agent")["lines"]
    assert sorted((line["key"].split("/")[0], line["project"]) for line in agents) == [
        ("alpha", str(one)),
        ("beta", str(one)),
        ("default", str(two)),
    ]
    table = cost("--by", "task")
    assert table.exit_code == 0, table.stderr
    assert "project" in table.stdout
    assert "alpha/1 (one)" in table.stdout  # the chart's lines say the project too


def test_a_ledger_written_before_teams_were_recorded_is_kept_and_read(
    workspace: Path, fake_model: FakeModelServer, tether: Run
) -> None:
    import sqlite3

    from tests.ledger.conftest import ledger_file
    from tether.ledger.db import MIGRATIONS

    path = ledger_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:  # a ledger of the first version, with a call in it
        db.execute("BEGIN")
        MIGRATIONS[0](db)
        db.execute("PRAGMA user_version = 1")
        db.execute(
            "INSERT INTO model_calls (at, session_id, agent_id, task_id, model, input_tokens, "
            "cache_read_tokens, cache_write_tokens, output_tokens, input_cost, cache_read_cost, "
            "cache_write_cost, output_cost, cost) "
            "VALUES ('2026-01-01', 's', 'main', '7', 'm', 1, 0, 0, 1, 0, 0, 0, 0, 0.5)"
        )
    fake_model.script(reply(text("hi"), usage={"input_tokens": 40, "output_tokens": 2}))
    assert tether("-p", "hello").exit_code == 0
    lines = cost_json("--by", "task")["lines"]
    assert [(line["key"], line.get("project")) for line in lines] == [
        ("7", None),  # recorded before teams and projects were: said as it was
        ("(none)", str(workspace.resolve())),
    ]
