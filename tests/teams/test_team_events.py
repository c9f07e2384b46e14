"""Task lifecycle and teammates' protocol transitions are events in the event log under
$TETHER_HOME, with every other event of every session (webhooks and telemetry read the same
records)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tether.observe.records import EventRecord, read_records
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import Letter, mate_answers, polite
from tether.testing.workers import done_text, task_answers

from .mates import member, new_team, status
from .workers import add_tasks, finish, start_worker, tether, wait_for


def _records(kind: str) -> list[EventRecord]:
    return [r for r in read_records(Path(os.environ["TETHER_HOME"])) if r.kind == kind]


def test_a_tasks_life_through_a_worker_is_in_the_event_log(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(done_text)
    add_tasks(repo, [], "first")
    code, _, err = finish(start_worker(repo, "--until-idle"))
    assert code == 0, err
    changes = _records("task_changed")
    assert [(r.task_id, r.payload["change"], r.payload["status"]) for r in changes] == [
        ("1", "created", "pending"),
        ("1", "claimed", "in_progress"),
        ("1", "completed", "completed"),
    ]
    assert all(r.payload["team"] == "default" for r in changes)
    assert changes[0].payload["by"].startswith("tasks-")
    assert {r.payload["by"] for r in changes[1:]} == {changes[1].agent_id}
    assert changes[1].agent_id.startswith("worker-")
    shown = tether(repo, "events", "tail", "--kind", "task_changed", "--task", "1")
    assert "#1 completed by worker-" in shown


def test_a_teammates_transitions_and_claims_are_in_the_event_log(
    repo: Path, model_env: FakeModelServer
) -> None:
    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "take one":
            return tool_use("TaskNext")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer, after_tools=lambda m, r: text(f"{m} on it"))
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    try:
        assert tether(repo, "tasks", "add", "write parser", "--team", team).strip() == "1"
        tether(repo, "team", "send", team, "alice", "take one")
        wait_for(lambda: member(status(repo, team), "alice")["board_task"] == "1", "the claim")
    finally:
        tether(repo, "team", "down", team)
    claimed = [r for r in _records("task_changed") if r.payload["change"] == "claimed"]
    assert [(r.agent_id, r.task_id, r.payload["team"], r.payload["by"]) for r in claimed] == [
        ("alice", "1", team, "alice")
    ]
    # The transitions the team's own log has from alice's process are in the global log.
    moves = [r.payload for r in _records("teammate_state_changed")]
    assert moves, "no transition of alice in the event log"
    assert {(m["team"], m["member"]) for m in moves} == {(team, "alice")}
    team_log = repo / ".tether" / "teams" / team / "events.jsonl"
    local = [json.loads(line) for line in team_log.read_text().splitlines()]
    kept = {(e["member"], e["before"], e["after"], e["cause"]) for e in local}
    assert {(m["member"], m["before"], m["after"], m["cause"]) for m in moves} <= kept
