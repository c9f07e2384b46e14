"""The person at the command line is the lead in the protocol, as a lead session is: a request
sent with `team send --wait` makes the lead `waiting` in the roster (`team status`) and the
event log until its reply or its timeout; a second request meanwhile is refused, also by a
later process (the state is the roster's, not the process's); a late reply read with `team
inbox` is matched to it; a teammate's request read there is owed, and `team send --reply-to`
answers it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tether.store.mailbox import Message, open_team_store
from tether.teams.link import events_file, read_events

from .mates import member, status
from .test_team_errors import run, team_of
from .workers import WAIT_S, tether, wait_for


def _lead(repo: Path, team: str) -> dict[str, Any]:
    return member(status(repo, team), "team-lead")


def _ask(repo: Path, team: str, *more: str) -> tuple[subprocess.Popen[str], str]:
    """`team send --wait` started, and the id of the request it sent."""
    asking = subprocess.Popen(
        [sys.executable, "-m", "tether", "team", "send", team, "alice", "2+2?", "--wait", *more],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert asking.stderr is not None
    said = asking.stderr.readline()
    sent, request_id, to, alice = said.split()
    assert (sent, to, alice) == ("sent", "to", "alice"), said
    return asking, request_id


def _answer(repo: Path, team: str, request_id: str, text: str = "4") -> None:
    store = open_team_store(None, project=repo, team=team)
    try:
        store.send(
            Message(
                sender="alice", recipient="team-lead", kind="reply", text=text, reply_to=request_id
            )
        )
    finally:
        store.close()


def _moves(repo: Path, team: str) -> list[tuple[str, str, str]]:
    return [
        (e["before"], e["after"], e["cause"])
        for e in read_events(events_file(repo, team), "team-lead", last=100)
    ]


def test_send_wait_makes_the_lead_wait_until_the_reply(repo: Path) -> None:
    team = team_of(repo, "alice")
    asking, request_id = _ask(repo, team)
    try:
        lead = _lead(repo, team)
        assert (lead["state"], lead["pending_request"]) == ("waiting", request_id)
        assert [r["message"]["id"] for r in lead["requests_sent"]] == [request_id]
        shown = tether(repo, "team", "status", team)
        assert f"team-lead        waiting    waiting on {request_id}" in shown
        _answer(repo, team, request_id)
        out, err = asking.communicate(timeout=WAIT_S)
    finally:
        if asking.poll() is None:
            asking.kill()
            asking.communicate()
    assert asking.returncode == 0, err
    assert f", reply to {request_id})\n  4\n" in out
    lead = _lead(repo, team)
    assert (lead["state"], lead["pending_request"], lead["requests_sent"]) == ("idle", None, [])
    assert [m[:2] for m in _moves(repo, team)] == [
        ("idle", "requesting"),
        ("requesting", "waiting"),
        ("waiting", "idle"),
    ]


def test_a_lead_left_waiting_refuses_a_new_request_until_the_reply_is_read(repo: Path) -> None:
    team = team_of(repo, "alice")
    asking, request_id = _ask(repo, team)
    asking.send_signal(signal.SIGKILL)  # the process gone, the request still unanswered
    asking.communicate(timeout=WAIT_S)
    code, _, err = run(repo, "team", "send", team, "alice", "and 3+3?", "--wait")
    assert code == 2
    assert f"team-lead is waiting for alice's reply to request {request_id}" in err, err
    assert _lead(repo, team)["pending_request"] == request_id
    _answer(repo, team, request_id)
    assert "  4\n" in tether(repo, "team", "inbox", team)  # matched to its request
    lead = _lead(repo, team)
    assert (lead["state"], lead["requests_sent"]) == ("idle", [])


def test_a_killed_wait_whose_reply_came_says_to_read_it(repo: Path) -> None:
    """Measured before: the refusal said only to wait for the reply (its timeout, minutes
    away), although the reply was in the lead's mailbox: the lead stayed waiting."""
    team = team_of(repo, "alice")
    asking, request_id = _ask(repo, team)
    asking.send_signal(signal.SIGKILL)
    asking.communicate(timeout=WAIT_S)
    _answer(repo, team, request_id)  # it comes after the waiting process is gone
    code, _, err = run(repo, "team", "send", team, "alice", "and 3+3?", "--wait")
    assert code == 2
    assert err.endswith(
        f"the reply from alice to {request_id} has come (a `team send --wait` ended before it "
        f"showed it): read it with `tether team inbox {team}`, then send again\n"
    ), err
    assert "  4\n" in tether(repo, "team", "inbox", team)  # unread still, and matched
    lead = _lead(repo, team)
    assert (lead["state"], lead["requests_sent"]) == ("idle", [])


def test_a_timed_out_request_and_a_teammates_request_to_the_cli_lead(repo: Path) -> None:
    team = team_of(repo, "alice")
    asking, request_id = _ask(repo, team, "--timeout", "0.5")
    _, err = asking.communicate(timeout=WAIT_S)
    assert asking.returncode == 1, err
    assert f"no reply from alice to {request_id} within 0.5 s" in err
    lead = _lead(repo, team)
    assert (lead["state"], lead["pending_request"]) == ("idle", None)
    assert [(r["message"]["id"], r["expired"]) for r in lead["requests_sent"]] == [
        (request_id, True)
    ]  # kept: a late reply is still its answer
    assert ("waiting", "idle", f"request {request_id} to alice timed out") in _moves(repo, team)
    _answer(repo, team, request_id)
    tether(repo, "team", "inbox", team)
    assert _lead(repo, team)["requests_sent"] == []

    store = open_team_store(None, project=repo, team=team)
    try:
        asked = store.send(
            Message(sender="alice", recipient="team-lead", kind="request", text="may I?")
        )
    finally:
        store.close()
    tether(repo, "team", "inbox", team)
    lead = _lead(repo, team)
    assert (lead["state"], [m["id"] for m in lead["requests_owed"]]) == ("responding", [asked.id])
    assert f"owes a reply to {asked.id} from alice" in tether(repo, "team", "status", team)
    code, _, err = run(repo, "team", "send", team, "alice", "yes", "--reply-to", "nosuch")
    assert (code, "no request nosuch to reply to" in err) == (2, True), err
    tether(repo, "team", "send", team, "alice", "yes", "--reply-to", asked.id)
    lead = _lead(repo, team)
    assert (lead["state"], lead["requests_owed"]) == ("idle", [])
    store = open_team_store(None, project=repo, team=team)
    try:
        got = [d.message for d in store.receive("alice", "check", block_s=0)]
    finally:
        store.close()
    assert [(m.reply_to, m.text) for m in got if m.kind == "reply"] == [(asked.id, "yes")]
    wait_for(lambda: _lead(repo, team)["pid"] is None, "the lead's record given up")
