"""A plan is answered from the command line: `team status` shows a `--plan` teammate's plan
request and its id, `team send "why" --reject-plan --plan-id ID` sends the explicit protocol's
plan_approval_response (it stays in plan mode, told why), `team send --approve-plan` (its one
plan awaiting approval) lets it write. Measured before: `team send` had no way to answer a
plan (`--reply-to` was refused: "it is answered with a plan_approval_response, not a
reply"), and the teammate stayed read-only until its request timed out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tether.config.settings import tether_home
from tether.config.trust import record_trust
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import Letter, mate_answers, member_of, polite

from .mates import member, new_team, status, wait_state
from .test_team_errors import run
from .workers import tether, wait_for


def test_a_plan_is_rejected_then_approved_from_the_cli(
    repo: Path, model_env: FakeModelServer
) -> None:
    plans_then_writes(repo, model_env)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--plan")
    try:
        tether(repo, "team", "send", team, "alice", "add c.txt")
        first = wait_state(repo, team, "alice", "waiting")["pending_request"]
        shown = tether(repo, "team", "status", team)
        assert f"waiting on plan approval {first}" in shown, shown
        # One source for both views (measured before: --json said read_only false while the
        # text said "plan mode (read-only)").
        assert "plan mode (read-only)" in shown, shown
        alice = member(status(repo, team), "alice")
        assert (alice["read_only"], alice["read_only_as"]) == (True, "plan mode")
        assert f"alice --approve-plan --plan-id {first}" in shown, shown

        code, _, err = run(repo, "team", "send", team, "alice", "ok", "--reply-to", first)
        assert code == 2
        assert f"--approve-plan --plan-id {first}" in err, err  # it says how
        out = tether(
            repo, "team", "send", team, "alice", "--reject-plan", "--plan-id", first, "too broad"
        )
        assert f"plan {first} rejected" in out, out
        second = wait_for_new_plan(repo, team, first)
        assert member(status(repo, team), "alice")["plan_mode"] is True
        told = [
            r.last_user_text()
            for r in model_env.requests
            if member_of(r) == "alice" and "plan not approved" in r.last_user_text()
        ]
        assert told
        assert "too broad" in told[0], told
        assert not (repo / "c.txt").exists()

        out = tether(repo, "team", "send", team, "alice", "--approve-plan")
        assert f"plan {second} approved" in out, out
        wait_for(lambda: (repo / "c.txt").exists(), "alice's write after the approval")
        wait_for(
            lambda: member(status(repo, team), "alice")["plan_mode"] is False,
            "alice out of plan mode",
        )
        code, _, err = run(repo, "team", "send", team, "alice", "--approve-plan")
        assert (code, err) == (
            2,
            "tether: error: alice has no plan awaiting the lead's approval\n",
        )
    finally:
        tether(repo, "team", "down", team, "--wait", "5")


def plans_then_writes(repo: Path, model_env: FakeModelServer) -> None:
    """A trusted project where Write is allowed, and teammates that, told to write c.txt, ask
    the lead to approve their plan while in plan mode and write it once approved."""
    assert record_trust(repo, True, tether_home=tether_home(), user_home=Path.home())
    (repo / ".tether").mkdir(exist_ok=True)
    (repo / ".tether" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Write"]}})
    )  # out of plan mode, it may write (headless: nobody to ask)
    model_env.responder = planning_mate(
        tool_use("Write", file_path=str(repo / "c.txt"), content="c\n")
    )


def planning_mate(
    write: Turn, done: Callable[[str, RecordedRequest], Turn] | None = None
) -> Callable[[RecordedRequest], Turn]:
    """Teammates that, told to write, ask the lead to approve their plan while in plan mode
    (refused the write) and `write` once approved; `done(mate, request)` after other tool
    results (default: `<mate> done`)."""

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].kind in ("message", "plan_approval_response"):
            return write
        return polite(mate, letters, request)

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        if "plan mode" in request.tool_results()[0]:
            plan = {"type": "plan_approval_request", "plan": "write c.txt"}
            return tool_use("SendMessage", to="team-lead", message=plan)
        return done(mate, request) if done else text(f"{mate} done")

    return mate_answers(answer, after_tools=after_tools)


def wait_for_new_plan(repo: Path, team: str, before: str) -> str:
    seen: list[str] = []

    def asked() -> bool:
        alice = member(status(repo, team), "alice")
        seen[:] = [alice["pending_request"] or ""]
        return alice["state"] == "waiting" and seen[0] not in ("", before)

    wait_for(asked, "alice's second plan request")
    return seen[0]
