"""The lead's plan answer names its plan unmistakably (`--plan-id ID`; the flags take no value)
and a refused answer changes nothing. Measured before: `--approve-plan ""` (a script's unset
`$ID`) approved the one plan waiting; `--reject-plan "too broad"` took the reason for the id and
was refused, and that refusal, as any with a wrong id, first printed the plan request and took it
out of the lead's mailbox; a plan answered by an earlier command, answered again, was said to be
no plan of the member's awaiting approval (the answered requests were not kept between runs)."""

from __future__ import annotations

from pathlib import Path

from tether.testing import FakeModelServer
from tether.testing.teammates import member_of

from .mates import member, new_team, status, wait_state
from .test_team_cli_plan import plans_then_writes, wait_for_new_plan
from .test_team_errors import run
from .workers import tether, wait_for


def test_a_plan_answer_names_its_plan_or_changes_nothing(
    repo: Path, model_env: FakeModelServer
) -> None:
    plans_then_writes(repo, model_env)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--plan")
    try:
        tether(repo, "team", "send", team, "alice", "add c.txt")
        first = wait_state(repo, team, "alice", "waiting")["pending_request"]
        send = ("team", "send", team, "alice")
        refused = {
            (*send, "--approve-plan", "--plan-id", ""): f"an empty plan id (--plan-id) for "
            f"alice's plan (awaiting approval: {first})",
            (*send, "--approve-plan", "--plan-id", " "): "an empty plan id",
            (*send, "--approve-plan", ""): f"--plan-id ID names alice's plan (awaiting "
            f"approval: {first})",
            (*send, "--approve-plan", first): f"--plan-id {first}",
            (*send, "--reject-plan", "--plan-id", "wrong"): f"wrong is not a plan request of "
            f"alice's awaiting approval ({first})",
        }
        for argv, said in refused.items():
            code, out, err = run(repo, *argv)
            assert (code, out) == (2, ""), (argv, code, out, err)  # the plan not shown
            assert said in err, (argv, err)
        assert member(status(repo, team), "alice")["state"] == "waiting"

        out = tether(repo, *send, "--reject-plan", "too broad")  # the reason, not an id
        assert "plan: write c.txt" in out, out  # still unread: shown once answered
        assert f"plan {first} rejected" in out, out
        second = wait_for_new_plan(repo, team, first)
        told = [
            r.last_user_text()
            for r in model_env.requests
            if member_of(r) == "alice" and "plan not approved" in r.last_user_text()
        ]
        assert told
        assert "too broad" in told[0], told

        for again in (("--approve-plan",), ("late", "--reject-plan")):
            code, _, err = run(repo, *send, *again, "--plan-id", first)
            assert (code, err) == (
                2,
                f"tether: error: plan request {first} has been answered already\n",
            ), again
        out = tether(repo, *send, "--approve-plan", "--plan-id", second)
        assert f"plan {second} approved" in out, out
        wait_for(lambda: (repo / "c.txt").exists(), "alice's write after the approval")
        code, _, err = run(repo, *send, "--approve-plan", "--plan-id", second)
        assert (code, err) == (
            2,
            f"tether: error: plan request {second} has been answered already\n",
        )
    finally:
        tether(repo, "team", "down", team, "--wait", "5")
