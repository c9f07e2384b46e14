"""A teammate killed while it holds a board task takes its claim back when it starts again
(its later model calls are filed under the task), or, when the task went to another while it
was down, is told it lost it (and its calls are filed under none)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tether.observe.records import EventRecord, read_records
from tether.store.task_records import Task
from tether.store.task_store import open_task_store
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import Letter, mate_answers, member_of, polite

from .mates import member, new_team, status
from .workers import tether, wait_for


def _answers(model_env: FakeModelServer) -> None:
    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "take one":
            return tool_use("TaskNext")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer, after_tools=lambda m, r: text(f"{m} on it"))


def _claim_then_kill(repo: Path, team: str, *up: str) -> None:
    tether(repo, "team", "up", team, "--member", "alice", *up)
    assert tether(repo, "tasks", "add", "write parser", "--team", team).strip() == "1"
    tether(repo, "team", "send", team, "alice", "take one")
    wait_for(lambda: member(status(repo, team), "alice")["board_task"] == "1", "the claim")
    os.kill(member(status(repo, team), "alice")["pid"], signal.SIGKILL)
    wait_for(lambda: not member(status(repo, team), "alice")["running"], "alice to be gone")


def _alices_replies() -> list[EventRecord]:
    return [
        r
        for r in read_records(Path(os.environ["TETHER_HOME"]))
        if r.kind == "message_completed" and r.agent_id == "alice"
    ]


def _ask_after_restart(repo: Path, team: str, model_env: FakeModelServer) -> RecordedRequest:
    before = len(model_env.requests)
    tether(repo, "team", "up", team)
    tether(repo, "team", "send", team, "alice", "how is it going")

    def asked() -> bool:
        return any(member_of(r) == "alice" for r in model_env.requests[before:])

    wait_for(asked, "alice's model call after its restart")
    wait_for(lambda: member(status(repo, team), "alice")["state"] == "idle", "alice idle")
    return next(r for r in model_env.requests[before:] if member_of(r) == "alice")


def test_a_restarted_teammate_takes_back_the_task_it_held(
    repo: Path, model_env: FakeModelServer
) -> None:
    _answers(model_env)
    team = new_team()
    try:
        _claim_then_kill(repo, team)
        request = _ask_after_restart(repo, team, model_env)
        assert "You hold task #1 (write parser) again" in request.last_user_text()
        [task] = [t for t in _tasks(repo, team) if t.id == "1"]
        assert (task.status, task.owner) == ("in_progress", "alice")
        assert member(status(repo, team), "alice")["board_task"] == "1"
    finally:
        tether(repo, "team", "down", team)
    # Its reply after the restart is filed under the task, as those before the kill were.
    assert _alices_replies()[-1].task_id == "1"


def test_a_restarted_teammate_is_told_its_task_went_to_another(
    repo: Path, model_env: FakeModelServer
) -> None:
    _answers(model_env)
    team = new_team()
    try:
        _claim_then_kill(repo, team, "--lease", "0.5")
        store = open_task_store(None, project=repo, team=team)
        try:  # once alice's lease has run out, bob takes the task
            wait_for(lambda: store.claim_next("bob") is not None, "bob's claim")
        finally:
            store.close()
        request = _ask_after_restart(repo, team, model_env)
        said = request.last_user_text()
        assert "Your claim on task #1 (write parser) was lost while you were stopped" in said
        assert "held by bob" in said
        [task] = [t for t in _tasks(repo, team) if t.id == "1"]
        assert (task.status, task.owner) == ("in_progress", "bob")
        assert member(status(repo, team), "alice")["board_task"] is None
    finally:
        tether(repo, "team", "down", team)
    assert _alices_replies()[-1].task_id is None


def _tasks(repo: Path, team: str) -> list[Task]:
    store = open_task_store(None, project=repo, team=team)
    try:
        return store.list()
    finally:
        store.close()
