"""The person who runs a team from the command line reads what teammates send the lead:
`team inbox` (marked read once shown), `team send --wait` (the reply that answers it), and a
lead session that takes up a team `team up` made (`TeamCreate` of an existing team)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tether.store.mailbox import Message, open_team_store
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process
from tether.testing.teammates import letters_in, mate_answers, polite

from .mates import member, new_team, status
from .test_team_errors import team_of
from .test_team_lead import lead_env
from .workers import WAIT_S, tether, wait_for


def test_the_cli_lead_reads_replies_with_send_wait_and_inbox(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", *store)
    try:
        tether(repo, "team", "send", team, "alice", "first of all", *store)
        waited = run_cli_process(
            ["team", "send", team, "alice", "what is 2+2?", "--wait", "--json", *store],
            env=dict(os.environ),
            cwd=repo,
            timeout_s=WAIT_S,
        )
        assert waited.exit_code == 0, waited.stderr
        request_id = waited.stderr.split()[1]
        (reply,) = [json.loads(line) for line in waited.stdout.splitlines()]
        assert (reply["sender"], reply["reply_to"], reply["text"]) == (
            "alice",
            request_id,
            "alice answers: what is 2+2?",
        )

        def lead_has_mail() -> bool:
            return member(status(repo, team, *store), "team-lead")["unread"] > 0

        wait_for(lead_has_mail, "a message to the lead")  # "alice got: first of all"
        shown: list[dict[str, str]] = []

        def inbox_shows_the_message() -> bool:
            out = tether(repo, "team", "inbox", team, "--json", *store)
            shown.extend(json.loads(line) for line in out.splitlines())
            return "alice got: first of all" in [m["text"] for m in shown]

        wait_for(inbox_shows_the_message, "the inbox to show alice's message")
        texts = [m["text"] for m in shown]
        assert "alice answers: what is 2+2?" not in texts  # shown by --wait, read there
        assert len({m["id"] for m in shown}) == len(shown)  # each shown once
    finally:
        tether(repo, "team", "down", team, "--timeout", "30", *store)
    tether(repo, "team", "inbox", team, *store)  # what came since, shown
    assert member(status(repo, team, *store), "team-lead")["unread"] == 0


def test_inbox_follow_holds_the_lead_and_shows_what_comes(repo: Path) -> None:
    team = team_of(repo, "alice")
    store = open_team_store(None, project=repo, team=team)
    follow = subprocess.Popen(
        [sys.executable, "-m", "tether", "team", "inbox", team, "--follow"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        sent = store.send(Message(sender="alice", recipient="team-lead", text="done: 3 files"))
        assert follow.stdout is not None
        head = follow.stdout.readline()
        assert head.split(" ", 1)[1] == f"alice (message {sent.id})\n", head
        assert follow.stdout.readline() == "  done: 3 files\n"
        second = run_cli_process(["team", "inbox", team], env=dict(os.environ), cwd=repo)
        assert second.exit_code == 2
        assert second.stderr.startswith(
            f"tether: error: the lead of team {team} is a running session (pid {follow.pid} on "
        )
        wait_for(lambda: store.unread("team-lead") == 0, "the shown message acknowledged")
    finally:
        follow.send_signal(signal.SIGINT)
        _, err = follow.communicate(timeout=WAIT_S)  # its pipes closed with it
        assert follow.returncode == 130, err
        store.close()
    lead = open_team_store(None, project=repo, team=team)
    try:
        assert next(m for m in lead.members() if m.name == "team-lead").pid is None
    finally:
        lead.close()


def test_a_lead_session_takes_up_a_team_that_team_up_made(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = team_of(repo, "alice")
    store = open_team_store(None, project=repo, team=team)
    try:
        store.send(Message(sender="alice", recipient="team-lead", text="the answer is 4"))
    finally:
        store.close()

    def lead(request: RecordedRequest) -> Turn:
        if not request.tool_results():
            return tool_use("TeamCreate", team_name=team)
        heard = [x.body.splitlines()[0] for x in letters_in(request.last_user_text())]
        return text(f"result: {request.tool_results()[0]} heard: {heard}")

    model_env.responder = lead
    done = run_cli_process(["-p", "go"], env=lead_env(), cwd=repo, timeout_s=WAIT_S)
    assert done.exit_code == 0, done.stderr
    assert done.stdout.strip() == (
        f"result: leading team {team}: 1 message(s) waiting for it heard: ['the answer is 4']"
    )
    assert member(status(repo, team), "team-lead")["unread"] == 0
