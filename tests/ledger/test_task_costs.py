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

from .conftest import cost_json, rows

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
    assert {line["key"]: (line["calls"], line["input_tokens"]) for line in by_task["lines"]} == {
        "1": (1, 100),
        "2": (1, 200),
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
