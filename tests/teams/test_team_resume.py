"""A teammate killed mid-turn and started again: it runs the turn it left unfinished, and it
still waits on the requests it sent and owes the replies it was asked for."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tether.store.mailbox import Message
from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text, tool_use
from tether.testing.teammates import Letter, first_line, mate_answers, member_of, polite

from .mates import lead_reads_until, lead_store, member, new_team, status, wait_state
from .workers import tether, wait_for


def kill(repo: Path, team: str, name: str, *store: str) -> None:
    os.kill(member(status(repo, team, *store), name)["pid"], signal.SIGKILL)
    wait_for(lambda: not member(status(repo, team, *store), name)["running"], f"{name} gone")


def calls_with(model: FakeModelServer, mate: str, words: str) -> int:
    return sum(1 for r in model.requests if member_of(r) == mate and words in r.last_user_text())


def test_a_teammate_killed_mid_turn_answers_the_request_when_started_again(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    stalled: list[str] = []

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and first_line(letters[0].body) == "think hard" and not stalled:
            stalled.append(mate)
            return reply(text("thinking"), stall_after=1)  # held until the process dies
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", *store)
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        asked = lead.send(
            Message(sender="team-lead", recipient="alice", kind="request", text="think hard")
        )
        wait_for(lambda: stalled == ["alice"], "alice's model call")
        assert wait_state(repo, team, "alice", "responding", *store)["unread"] == 0
        kill(repo, team, "alice", *store)
        tether(repo, "team", "up", team, *store)
        got = lead_reads_until(lead, "alice answers: think hard")
        answered = [m for m in got if m.kind == "reply"]
        assert [(m.reply_to, m.text) for m in answered] == [(asked.id, "alice answers: think hard")]
        assert calls_with(model_env, "alice", "think hard") == 2
        alice = wait_state(repo, team, "alice", "idle", *store)
        assert (alice["running"], alice["unread"], alice["requests_owed"]) == (True, 0, [])
    finally:
        lead.close()
        tether(repo, "team", "down", team, *store)


def test_a_teammate_started_again_still_waits_on_its_request_and_matches_the_reply(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    notes: list[str] = []

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and first_line(letters[0].body) == "ask the lead":
            return tool_use("SendMessage", to="team-lead", message="what next?", request=True)
        if letters and letters[0].kind == "reply":
            notes.append(request.last_user_text())
            said = f"got {first_line(letters[0].body)}"
            return tool_use("SendMessage", to="team-lead", message=said)
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", *store)
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        tether(repo, "team", "send", team, "alice", "ask the lead", *store)
        request = next(m for m in lead_reads_until(lead, "what next?") if m.kind == "request")
        before = wait_state(repo, team, "alice", "waiting", *store)
        assert before["pending_request"] == request.id
        kill(repo, team, "alice", *store)
        tether(repo, "team", "up", team, *store)
        after = wait_state(repo, team, "alice", "waiting", *store)
        assert (after["pending_request"], after["running"]) == (request.id, True)
        assert after["events"][-1]["after"] == "waiting"
        assert after["events"][-1]["cause"].startswith("restarted")
        lead.send(
            Message(
                sender="team-lead", recipient="alice", kind="reply", text="b", reply_to=request.id
            )
        )
        lead_reads_until(lead, "got b")
        assert len(notes) == 1
        assert "did not send" not in notes[0]
        idle = wait_state(repo, team, "alice", "idle", *store)
        assert (idle["pending_request"], idle["requests_sent"]) == (None, [])
    finally:
        lead.close()
        tether(repo, "team", "down", team, *store)
