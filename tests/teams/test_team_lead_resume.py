"""A lead that exits and is resumed leads its team again: `--continue` picks the lead's own
session (never a teammate's newer one), and the reply that came meanwhile reaches it."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process
from tether.testing.teammates import letters_in, mate_answers, member_of, polite

from .mates import member, status
from .test_team_lead import lead_env
from .workers import WAIT_S, tether, wait_for

QUESTION = "what did alice answer?"


def test_a_lead_continued_after_it_exited_gets_the_reply_that_came_meanwhile(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"
    asked: list[bool] = []
    lead_gone = threading.Event()  # alice answers only once the lead has exited (else the
    # lead, still there, takes the reply at once: a fast teammate made this test depend on timing)

    def lead(request: RecordedRequest) -> Turn:
        results = request.tool_results()
        letters = letters_in(request.last_user_text())
        if QUESTION in request.last_user_text():
            replies = [x.body.splitlines()[0] for x in letters if x.reply_to]
            return text(f"lead heard: {replies}")
        if not results:
            return tool_use("TeamCreate", team_name=team)
        if results[0].startswith("Team "):
            return tool_use(
                "Task",
                description="a helper",
                prompt="hello",
                subagent_type="general-purpose",
                team_name=team,
                name="alice",
            )
        if not asked and any(x.body.startswith("alice got") for x in letters):
            asked.append(True)
            return tool_use("SendMessage", to="alice", message="NUM start", request=True)
        if asked and results[0].startswith("request "):
            return text("asked alice")  # the lead exits before the reply comes
        return tool_use("Glob", pattern="*.txt")

    def respond(request: RecordedRequest) -> Turn:
        if member_of(request) is None:
            return lead(request)
        if "NUM start" in request.last_user_text():
            lead_gone.wait(WAIT_S)
        return mate_answers(polite)(request)

    model_env.responder = respond
    first = run_cli_process(
        ["-p", "start the team", "--output-format", "json"],
        env=lead_env(),
        cwd=repo,
        timeout_s=WAIT_S,
    )
    lead_gone.set()
    try:
        assert first.exit_code == 0, first.stderr
        assert first.json()["result"] == "asked alice"
        said = f"tether: team {team}: this lead stops waiting on alice: the reply to request "
        assert said in first.stderr
        assert "'NUM start'" in first.stderr
        assert "run again with --continue (or --resume) to take it up" in first.stderr

        def answered() -> bool:
            events = member(status(repo, team), "alice")["events"]
            return any(e["before"] == "responding" for e in events)

        wait_for(answered, "alice to answer the lead's request")
        lead_record = member(status(repo, team), "team-lead")
        assert lead_record["state"] == "waiting"
        assert lead_record["unread"] >= 1
        again = run_cli_process(
            ["-p", QUESTION, "--continue", "--output-format", "json"],
            env=lead_env(),
            cwd=repo,
            timeout_s=WAIT_S,
        )
        assert again.exit_code == 0, again.stderr
        assert again.json()["session_id"] == first.json()["session_id"]  # the lead's own
        assert again.json()["result"] == "lead heard: ['alice answers: NUM start']"
        lead_record = member(status(repo, team), "team-lead")
        assert (lead_record["state"], lead_record["pending_request"]) == ("idle", None)
    finally:
        lead_gone.set()
        tether(repo, "team", "down", team)
