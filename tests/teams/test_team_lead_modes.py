"""Teammates start with the lead's permission mode (as in Claude Code): one the lead started in
plan mode works, once its plan is approved, in the lead's mode rather than the default."""

from __future__ import annotations

import uuid
from pathlib import Path

from tether.store.mailbox import Message
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process
from tether.testing.teammates import member_of

from .mates import lead_reads_until, lead_store, member, status
from .test_team_cli_plan import planning_mate
from .test_team_lead import lead_env
from .workers import WAIT_S, tether


def test_a_teammate_whose_plan_is_approved_works_in_the_leads_permission_mode(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"
    write = tool_use("Write", file_path=str(repo / "c.txt"), content="c\n")

    def lead(request: RecordedRequest) -> Turn:
        results = request.tool_results()
        if not results:
            return tool_use("TeamCreate", team_name=team)
        if results[0].startswith("Team "):
            return tool_use(
                "Task",
                description="write c.txt",
                prompt="write c.txt",
                subagent_type="general-purpose",
                team_name=team,
                name="bob",
                mode="plan",
            )
        return text("spawned")

    mate = planning_mate(
        write, done=lambda mate, request: text(f"{mate} done: {request.tool_results()[0][:80]}")
    )
    model_env.responder = lambda r: lead(r) if member_of(r) is None else mate(r)
    done = run_cli_process(
        ["-p", "start the team", "--dangerously-skip-permissions"],
        env=lead_env(),
        cwd=repo,
        timeout_s=WAIT_S,
    )
    assert done.exit_code == 0, done.stderr
    inbox = lead_store(repo, team)
    try:
        got = lead_reads_until(inbox, "bob done")
        asked = [m for m in got if m.kind == "plan_approval_request"]
        assert not (repo / "c.txt").exists()
        inbox.send(
            Message(
                sender="team-lead",
                recipient="bob",
                kind="plan_approval_response",
                reply_to=asked[0].id,
                data={"approve": True},
            )
        )
        lead_reads_until(inbox, "bob done")
        assert (repo / "c.txt").read_text() == "c\n"
        assert member(status(repo, team), "bob")["plan_mode"] is False
    finally:
        inbox.close()
        tether(repo, "team", "down", team)
