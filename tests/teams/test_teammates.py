"""`tether team` as real processes against the fake model server: teammates started in the
background, messages in and out through their mailboxes, status, shutdown."""

from __future__ import annotations

import uuid
from pathlib import Path

from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import lead_reads, lead_store, member, status, wait_state
from .workers import tether


def new_team() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


def test_a_teammate_answers_the_lead_and_shuts_down_when_asked(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    out = tether(repo, "team", "up", team, "--member", "alice=Explore")
    assert "alice: started (pid " in out
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "what is in a.txt?")
        got = lead_reads(lead, 2)
        assert [(m.sender, m.kind, m.text) for m in got] == [
            ("alice", "message", "alice got: what is in a.txt?"),
            ("alice", "idle_notification", "alice done"),
        ]
        alice = wait_state(repo, team, "alice", "idle")
        assert alice["running"] is True
        assert alice["unread"] == 0
        assert alice["spend_usd"] > 0
        assert alice["agent"] == "Explore"
        assert alice["session_id"]
        down = tether(repo, "team", "down", team)
        assert down.splitlines() == ["alice: asked to shut down", "alice: stopped"]
        stopped = member(status(repo, team), "alice")
        assert (stopped["state"], stopped["running"]) == ("stopped", False)
        shutdown = [(e["before"], e["after"], e["stopping"]) for e in stopped["events"]]
        assert shutdown == [("idle", "responding", False), ("responding", "idle", True)]
    finally:
        lead.close()
