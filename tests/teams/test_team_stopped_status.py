"""What `team status` says of a teammate that is not running is what holds while it does not
run, on either store:

- It works on nothing: killed during a turn, then brought down, it has no current task, in
  its record (cleared where its stop is recorded) nor in `status` (a record its dead process
  left is shown without one). Measured before: `current_task: "hang please"` with state
  `stopped`, until it started again.
- A plan the lead approved while it was stopped is shown approved, to be delivered when it
  starts, with no hint to approve it again. Measured before: `waiting on plan approval P` and
  the `--approve-plan --plan-id P` hint, which then failed (answered already). Once it has
  started and taken the answer in, the answer is gone from its record (consumed once).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text
from tether.testing.teammates import Letter, mate_answers, member_of, polite

from .mates import lead_store, member, new_team, status, wait_state
from .test_team_cli_plan import plans_then_writes
from .workers import tether, wait_for


def _url(store: list[str]) -> str | None:
    return store[1] if store else None


def test_a_teammate_killed_mid_turn_then_brought_down_has_no_current_task(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "hang please":
            return reply(text("thinking"), stall_after=1)  # held until the process ends
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", *store)
    try:
        tether(repo, "team", "send", team, "alice", "hang please", *store)
        wait_for(
            lambda: member(status(repo, team, *store), "alice")["current_task"] == "hang please",
            "alice at work",
        )
        wait_for(lambda: any(member_of(r) == "alice" for r in model_env.requests), "its call")
        os.kill(member(status(repo, team, *store), "alice")["pid"], signal.SIGKILL)
        wait_for(lambda: not member(status(repo, team, *store), "alice")["running"], "it gone")
        dead = member(status(repo, team, *store), "alice")
        assert (dead["exited"], dead["current_task"]) == (True, None)  # its record left as was
    finally:
        tether(repo, "team", "down", team, *store)
    alice = member(status(repo, team, *store), "alice")
    assert (alice["state"], alice["current_task"]) == ("stopped", None)
    roster = lead_store(repo, team, _url(store))
    try:
        recorded = next(m for m in roster.members() if m.name == "alice")
    finally:
        roster.close()
    assert (recorded.state, recorded.current_task) == ("stopped", None)


def test_a_plan_approved_while_its_teammate_is_stopped_is_shown_approved(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    plans_then_writes(repo, model_env)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--plan", *store)
    try:
        tether(repo, "team", "send", team, "alice", "add c.txt", *store)
        plan = wait_state(repo, team, "alice", "waiting", *store)["pending_request"]
        tether(repo, "team", "down", team, "--wait", "5", *store)
        out = tether(repo, "team", "send", team, "alice", "--approve-plan", *store)
        assert f"plan {plan} approved" in out, out
        shown = tether(repo, "team", "status", team, *store)
        assert f"plan {plan} approved: delivered when alice starts" in shown, shown
        assert "waiting on plan approval" not in shown, shown
        assert "--approve-plan" not in shown, shown
        alice = member(status(repo, team, *store), "alice")
        assert (alice["state"], alice["plan_answers"]) == ("stopped", {plan: True})
        assert not (repo / "c.txt").exists()

        tether(repo, "team", "up", team, *store)
        wait_for(lambda: (repo / "c.txt").exists(), "alice's write after the approval")
        wait_for(
            lambda: member(status(repo, team, *store), "alice")["plan_mode"] is False,
            "alice out of plan mode",
        )
        assert f"plan {plan}" not in tether(repo, "team", "status", team, *store)
        # Taken in, the answer is consumed: not read again (measured before: `{plan: True}`
        # kept in `--json` for good, with the request no longer held).
        alice = member(status(repo, team, *store), "alice")
        assert (alice["requests_sent"], alice["plan_answers"]) == ([], {})
    finally:
        tether(repo, "team", "down", team, "--wait", "5", *store)
