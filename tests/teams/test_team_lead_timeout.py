"""The lead's own requests time out, as a teammate's do: the lead (`-p`) asks a teammate that
never answers, goes on working (a tool call), and when the timeout passes it is told (an
error steered into its turn), waits no longer (its roster record and `team status` say so),
and may send a new request. Measured before: only a teammate's loop expired its requests; a
lead stayed `waiting` for ever, and every later request was refused."""

from __future__ import annotations

import uuid
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process
from tether.testing.teammates import Letter, mate_answers, member_of, polite

from .mates import member, status
from .test_team_lead import lead_env
from .workers import WAIT_S, tether

TIMED_OUT = "got no reply in time"


def test_a_leads_request_with_no_reply_in_time_returns_it_to_idle_while_it_works(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"
    events = repo / ".tether" / "teams" / team / "events.jsonl"
    asked_again: list[bool] = []

    def lead(request: RecordedRequest) -> Turn:
        results = request.tool_results()
        if not results:
            return tool_use("TeamCreate", team_name=team)
        said = results[0]
        if said.startswith("Team "):
            return tool_use(
                "Task",
                description="be asked",
                prompt="wait for questions",
                subagent_type="general-purpose",
                team_name=team,
                name="alice",
            )
        if said.startswith("Spawned"):
            return tool_use("SendMessage", to="alice", message="first?", request=True, timeout_s=1)
        if TIMED_OUT in request.last_user_text():
            asked_again.append(True)
            return tool_use(
                "SendMessage", to="alice", message="second?", request=True, timeout_s=60
            )
        if not asked_again and "gave up" not in said:
            # Work on (a command) until the request's time has passed: the lead is told
            # while its turn runs, not at its end (20 s: a bound for a lead never told).
            wait = f"until grep -q 'timed out' '{events}'; do sleep 0.05; done"
            return tool_use(
                "Bash", command=f'timeout 20 sh -c "{wait}" && echo waited || echo gave up'
            )
        return text(f"lead: {said}")

    def mate(name: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if any(letter.kind == "request" for letter in letters):
            return text(f"{name} does not answer")
        return polite(name, letters, request)

    def respond(request: RecordedRequest) -> Turn:
        if member_of(request) is None:
            return lead(request)
        return mate_answers(mate)(request)

    model_env.responder = respond
    done = run_cli_process(
        ["-p", "start the team", "--output-format", "json", "--dangerously-skip-permissions"],
        env=lead_env(),
        cwd=repo,
        timeout_s=WAIT_S,
    )
    try:
        assert done.exit_code == 0, done.stderr
        lead_calls = [r for r in model_env.requests if member_of(r) is None]
        told = next(r.last_user_text() for r in lead_calls if TIMED_OUT in r.last_user_text())
        assert " to alice got no reply in time: you are no longer waiting for it" in told
        second = done.json()["result"]
        assert second.startswith("lead: "), second
        assert "Error" not in second, second
        record = member(status(repo, team), "team-lead")
        moves = [(e["before"], e["after"], e["cause"]) for e in record["events"]]
        assert any(
            (before, after) == ("waiting", "idle") and cause.endswith("to alice timed out")
            for before, after, cause in moves
        ), moves
        # The second request was accepted: the lead waits on it now, as its record says.
        assert record["state"] == "waiting"
        assert moves[-1][1] == "waiting"
    finally:
        tether(repo, "team", "down", team)
