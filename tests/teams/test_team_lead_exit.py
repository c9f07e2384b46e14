"""A headless lead that exits leaves the roster true: the reply it read is acknowledged (it is
in its session file), it is no longer waiting, and its spend is recorded. One that exits while
a teammate or a worker still holds a task of its team's board says whom it is waiting on and
for what."""

from __future__ import annotations

import uuid
from pathlib import Path

from tether.store.task_records import NewTask
from tether.store.task_store import open_task_store
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import letters_in

from .mates import lead_store, member, status
from .test_team_lead import _run_lead
from .workers import tether


def test_a_headless_lead_that_exits_acks_what_it_read_and_records_its_state_and_spend(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"

    asked: list[bool] = []

    def lead(request: RecordedRequest) -> Turn:
        results = request.tool_results()
        letters = letters_in(request.last_user_text())
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
            asked.append(True)  # alice is idle now: the request is a turn of its own
            return tool_use("SendMessage", to="alice", message="NUM start", request=True)
        replies = [x for x in letters if x.reply_to]
        if not replies:
            return tool_use("Glob", pattern="*.txt")  # work on until the reply comes
        return text(f"lead heard: {replies[0].body.splitlines()[0]}")

    done = _run_lead(model_env, repo, lead)
    try:
        assert done.exit_code == 0, done.stderr
        assert done.json()["result"] == "lead heard: alice answers: NUM start"
        lead_record = member(status(repo, team), "team-lead")
        assert (lead_record["state"], lead_record["pending_request"]) == ("idle", None)
        assert lead_record["requests_sent"] == []
        assert lead_record["spend_usd"] > 0
        store = lead_store(repo, team)
        try:  # whatever is still unread, the reply the session holds is not
            left = store.receive("team-lead", "test", reclaim_after_s=0)
            assert [d.message for d in left if d.message.reply_to] == []
        finally:
            store.close()
    finally:
        tether(repo, "team", "down", team)


def test_a_lead_that_exits_while_others_hold_its_boards_tasks_says_whom_it_waits_on(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"
    board = open_task_store(None, project=repo, team=team)
    try:  # a teammate's claim and a worker's, as their task tools and claims make them
        for subject, owner in (("Write the docs", "alice"), ("Run the checks", "worker-7@h2")):
            board.claim(board.create(NewTask(subject=subject)).id, owner, lease_s=600)
        board.create(NewTask(subject="Not started"))
    finally:
        board.close()

    def lead(request: RecordedRequest) -> Turn:
        if not request.tool_results():
            return tool_use("TeamCreate", team_name=team)
        return text("the lead is done")

    done = _run_lead(model_env, repo, lead)
    assert done.exit_code == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "this lead stops" in line]
    assert len(said) == 1, done.stderr
    assert said[0].startswith(
        f"tether: team {team}: this lead stops waiting on alice: task #1 'Write the docs' in "
        "progress, lease until "
    )
    assert " and waiting on worker-7@h2: task #2 'Run the checks' in progress" in said[0]
    assert "Not started" not in said[0]
    assert said[0].endswith("run again with --continue (or --resume) to take it up")
