"""`team status`'s current task is the newest message the teammate's model was given, not the
newest its receiver has taken from the mailbox and queued (many messages arrive while it
works: the status names none it has not seen)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tether.store.mailbox import Message
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import Letter, letters_in, mate_answers, member_of, polite

from .mates import lead_store, member, new_team, status, wait_state
from .workers import tether, wait_for

QUEUED = 40


def test_status_names_the_newest_message_the_model_was_given(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = new_team()
    given: list[str] = []
    shown: list[tuple[str, str | None]] = []

    def respond(request: RecordedRequest) -> Turn:
        if member_of(request) != "alice":
            return text("lead")
        letters = letters_in(request.last_user_text())
        bodies = [x.body for x in letters if x.kind == "message"]
        if not bodies or request.tool_results():
            return polite("alice", letters, request)  # `team down`'s request approved
        given.extend(bodies)
        wait_for(
            lambda: member(status(repo, team), "alice")["current_task"] == given[-1],
            f"status to show {given[-1]!r}",
        )
        if bodies == ["first"]:
            send(*(f"NUM{n:03}" for n in range(QUEUED)))
            log = repo / ".tether" / "teams" / team / "alice.log"
            wait_for(lambda: "came during the turn: steered in" in log.read_text(), "steering")
        # Taken from the mailbox or not, nothing the model has not seen is its task.
        shown.append((given[-1], member(status(repo, team), "alice")["current_task"]))
        return text(f"alice read {len(given)}")

    def send(*texts: str) -> None:
        lead = lead_store(repo, team)
        try:
            for said in texts:
                lead.send(Message(sender="team-lead", recipient="alice", text=said))
        finally:
            lead.close()

    model_env.responder = respond
    tether(repo, "team", "up", team, "--member", "alice")
    try:
        send("first")
        wait_for(lambda: len(given) == 1 + QUEUED, "alice to be given every message")
        wait_state(repo, team, "alice", "idle")
    finally:
        tether(repo, "team", "down", team)
    assert given == ["first", *(f"NUM{n:03}" for n in range(QUEUED))]
    assert shown[0] == ("first", "first")  # 40 queued meanwhile, none seen: still "first"
    assert all(newest == now for newest, now in shown)


def test_a_shutdown_request_is_no_current_task(repo: Path, model_env: FakeModelServer) -> None:
    """Only messages that give work are tasks: the shutdown request `team down` sends is not
    shown as the teammate's current task (its last task's, done, is none either)."""
    model_env.responder = mate_answers(polite, after_tools=lambda m, r: text(f"{m} done"))
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    try:
        tether(repo, "team", "send", team, "alice", "task A")
        wait_state(repo, team, "alice", "idle")
        wait_for(lambda: member(status(repo, team), "alice")["unread"] == 0, "task A read")
        out = tether(repo, "team", "down", team)
        assert "alice: stopped" in out
        alice = member(status(repo, team), "alice")
        assert alice["running"] is False
        assert alice["current_task"] is None, alice
    finally:
        tether(repo, "team", "down", team)


def test_status_names_the_board_task_a_teammate_claimed(
    repo: Path, model_env: FakeModelServer
) -> None:
    """A teammate has the task tools on its team's board (it had none), and a task it claims
    (TaskNext) is the one it works on: `team status` says which, in its line and its JSON."""

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
        lines = tether(repo, "team", "status", team).splitlines()
        [alice] = [line for line in lines if line.strip().startswith("alice ")]
        assert alice.endswith(" · on task #1"), alice
    finally:
        tether(repo, "team", "down", team)


def test_a_dead_teammates_claim_that_ran_out_is_no_current_task(
    repo: Path, model_env: FakeModelServer
) -> None:
    """A teammate killed while it held #1: once its lease ran out and another took the task,
    `team status` no longer says it is on #1 (the board's live claim says, not its record)."""

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "take one":
            return tool_use("TaskNext")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer, after_tools=lambda m, r: text(f"{m} on it"))
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--lease", "1")
    other: subprocess.Popen[str] | None = None
    try:
        assert tether(repo, "tasks", "add", "write parser", "--team", team).strip() == "1"
        tether(repo, "team", "send", team, "alice", "take one")
        wait_for(lambda: member(status(repo, team), "alice")["board_task"] == "1", "the claim")
        os.killpg(member(status(repo, team), "alice")["pid"], signal.SIGKILL)
        wait_for(lambda: not member(status(repo, team), "alice")["running"], "alice's death")
        tasks = [*("--team", team)]
        wait_for(
            lambda: (
                json.loads(tether(repo, "tasks", "show", "1", "--json", *tasks))["lease_expires_at"]
                < time.time()
            ),
            "the lease to run out",
        )
        alice = member(status(repo, team), "alice")
        assert alice["board_task"] is None, alice  # its lease ran out: it holds nothing
        other = subprocess.Popen(
            [sys.executable, "-m", "tether.testing.claimers", str(repo / ".tether/tasks.db"),
             team, "other", "--project", str(repo), "--hold", "--lease", "600"],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert other.stdout is not None
        assert json.loads(other.stdout.readline())["claimed"] == "1"
        assert member(status(repo, team), "alice")["board_task"] is None
        [line] = [x for x in tether(repo, "team", "status", team).splitlines() if "alice " in x]
        assert "on task" not in line, line
    finally:
        if other is not None:
            other.kill()
            other.communicate()
        tether(repo, "team", "down", team)
