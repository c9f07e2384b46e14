"""What a teammate keeps across a restart: plan mode until the lead approves its plan; and what
it does not: the shutdown request that ended its last run."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from tether.store.mailbox import Message
from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text, tool_use
from tether.testing.teammates import (
    Letter,
    first_line,
    letters_in,
    mate_answers,
    member_of,
    polite,
)

from .mates import lead_reads_until, lead_store, member, new_team, status, wait_state
from .workers import tether, wait_for


def kill(repo: Path, team: str, name: str) -> None:
    os.kill(member(status(repo, team), name)["pid"], signal.SIGKILL)
    wait_for(lambda: not member(status(repo, team), name)["running"], f"{name} to be gone")


def test_a_restarted_teammate_stays_read_only_until_the_lead_approves_its_plan(
    repo: Path, model_env: FakeModelServer
) -> None:
    from tether.config.settings import tether_home
    from tether.config.trust import record_trust

    assert record_trust(repo, True, tether_home=tether_home(), user_home=Path.home())
    (repo / ".tether").mkdir(exist_ok=True)
    (repo / ".tether" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Write"]}})
    )
    asked: list[str] = []

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].kind == "message":
            asked.append(first_line(letters[0].body))
        if letters and letters[0].kind in ("message", "plan_approval_response"):
            name = asked[-1]
            return tool_use("Write", file_path=str(repo / name), content=f"{name}\n")
        return polite(mate, letters, request)

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        if "plan mode" in request.tool_results()[0]:
            plan = {"type": "plan_approval_request", "plan": f"write {asked[-1]}"}
            return tool_use("SendMessage", to="team-lead", message=plan)
        return text(f"{mate} done")

    model_env.responder = mate_answers(answer, after_tools=after_tools)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--plan")
    assert member(status(repo, team), "alice")["plan_mode"] is True
    kill(repo, team, "alice")
    tether(repo, "team", "up", team)  # no --plan: the roster keeps it
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "c.txt")
        got = lead_reads_until(lead, "alice done")
        request = next(m for m in got if m.kind == "plan_approval_request")
        assert not (repo / "c.txt").exists()
        assert member(status(repo, team), "alice")["plan_mode"] is True
        lead.send(
            Message(
                sender="team-lead",
                recipient="alice",
                kind="plan_approval_response",
                reply_to=request.id,
                data={"approve": True},
            )
        )
        lead_reads_until(lead, "alice done")
        assert (repo / "c.txt").read_text() == "c.txt\n"
        assert wait_state(repo, team, "alice", "idle")["plan_mode"] is False
        # Approved is approved: started again, it writes without asking.
        kill(repo, team, "alice")
        tether(repo, "team", "up", team)
        tether(repo, "team", "send", team, "alice", "d.txt")
        got = lead_reads_until(lead, "alice done")
        assert [m.kind for m in got] == ["idle_notification"]
        assert (repo / "d.txt").read_text() == "d.txt\n"
    finally:
        lead.close()
        tether(repo, "team", "down", team)


def test_a_shutdown_request_left_unread_by_team_down_is_not_replayed_on_the_next_up(
    repo: Path, model_env: FakeModelServer
) -> None:
    """`down` asks, the teammate is stuck in a model call and never reads the request, SIGTERM
    stops it: the shutdown happened. Started again, it keeps working."""

    stalled: list[str] = []

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "think hard" and not stalled:
            stalled.append(mate)
            return reply(text("thinking"), stall_after=1)  # held until the process stops
        return polite(mate, letters, request)

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        # `up` returns before the teammate is ready: "hello" may come while it runs its
        # unfinished turn again, steered in beside a tool's result; it is answered then.
        steered = letters_in(request.last_user_text())
        return polite(mate, steered, request) if steered else text(f"{mate} done")

    model_env.responder = mate_answers(answer, after_tools=after_tools)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "think hard")
        wait_for(
            lambda: any(member_of(r) == "alice" for r in model_env.requests), "alice's model call"
        )
        out = tether(repo, "team", "down", team, "--wait", "1")
        assert out.splitlines() == [
            "alice: asked to shut down",
            "alice: stopped (SIGTERM after 1 s)",
        ]
        stopped = member(status(repo, team), "alice")
        assert stopped["unread"] == 1  # the request, never read
        assert stopped["shutdown_done"]
        tether(repo, "team", "up", team)
        tether(repo, "team", "send", team, "alice", "hello")
        got = lead_reads_until(lead, "alice got: hello")
        assert all(m.kind != "shutdown_response" for m in got)
        alice = wait_state(repo, team, "alice", "idle")
        assert (alice["running"], alice["unread"]) == (True, 0)
        log = (repo / ".tether" / "teams" / team / "alice.log").read_text()
        assert f"shutdown request {stopped['shutdown_done']}: done already" in log
    finally:
        lead.close()
        tether(repo, "team", "down", team)
