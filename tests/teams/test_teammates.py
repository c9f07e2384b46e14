"""`tether team` as real processes against the fake model server: teammates started in the
background, messages in and out through their mailboxes, status, shutdown."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from tether.store.mailbox import Message
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.recorded import content_text
from tether.testing.teammates import (
    Letter,
    first_line,
    letters_in,
    mate_answers,
    member_of,
    polite,
)

from .mates import (
    lead_reads,
    lead_reads_until,
    lead_store,
    member,
    new_team,
    status,
    wait_state,
)
from .test_team_cli_plan import plans_then_writes
from .workers import WAIT_S, tether, wait_for


def test_a_teammate_answers_the_lead_and_shuts_down_when_asked(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    out = tether(repo, "team", "up", team, "--member", "alice=Explore", *store)
    assert "alice: started (pid " in out
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        tether(repo, "team", "send", team, "alice", "what is in a.txt?", *store)
        got = lead_reads(lead, 2)
        assert [(m.sender, m.kind, m.text) for m in got] == [
            ("alice", "message", "alice got: what is in a.txt?"),
            ("alice", "idle_notification", "alice done"),
        ]
        alice = wait_state(repo, team, "alice", "idle", *store)
        assert alice["running"] is True
        assert alice["unread"] == 0
        assert alice["spend_usd"] > 0
        assert alice["agent"] == "Explore"
        assert alice["session_id"]
        down = tether(repo, "team", "down", team, *store)
        assert down.splitlines() == ["alice: asked to shut down", "alice: stopped"]
        stopped = member(status(repo, team, *store), "alice")
        assert (stopped["state"], stopped["running"]) == ("stopped", False)
        shutdown = [(e["before"], e["after"], e["stopping"]) for e in stopped["events"]]
        assert shutdown == [("idle", "responding", False), ("responding", "idle", True)]
    finally:
        lead.close()


def test_requests_between_teammates_follow_the_protocol(
    repo: Path, model_env: FakeModelServer
) -> None:
    """alice asks bob (and waits); a second request meanwhile and a message to nobody are
    error results saying why; bob's reply is matched to the request and reaches alice."""
    # bob replies once alice has tried both: his reply steered into her turn before then
    # would end her wait (her second request sent, not refused).
    tried = threading.Event()

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if mate == "alice" and (letters[0].sender, letters[0].kind) == ("team-lead", "message"):
            return tool_use("SendMessage", to="bob", message="what is 2+2?", request=True)
        if mate == "alice" and letters[0].kind == "reply":
            said = f"bob says: {first_line(letters[0].body)} (to {letters[0].reply_to})"
            return tool_use("SendMessage", to="team-lead", message=said)
        if mate == "bob" and any(x.kind == "request" for x in letters):
            assert tried.wait(WAIT_S), "alice never tried a second request and a stranger"
        return polite(mate, letters, request)

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        result = request.tool_results()[0]
        if mate == "alice" and "you are waiting for the reply" in result:
            return tool_use("SendMessage", to="bob", message="and 3+3?", request=True)
        if mate == "alice" and "may not send a new request" in result:
            return tool_use("SendMessage", to="carol", message="hello")
        if mate == "alice" and "no member named 'carol'" in result:
            tried.set()
        return text(f"{mate} done")

    model_env.responder = mate_answers(answer, after_tools=after_tools)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--member", "bob")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "ask bob")
        said = [m for m in lead_reads_until(lead, "bob says") if m.kind == "message"]
        request_id = said[0].text.rsplit("(to ", 1)[1].rstrip(")")
        assert said[0].text == f"bob says: bob answers: what is 2+2? (to {request_id})"
        results = [
            (r.tool_results()[0], r.tool_result_errors()[0])
            for r in model_env.requests
            if member_of(r) == "alice" and r.tool_results()
        ]
        assert results[0] == (
            f"request {request_id} sent to bob: you are waiting for the reply (it times out "
            "in 600 s); it will arrive as a message",
            False,
        )
        refused, is_error = results[1]
        assert is_error
        assert refused.startswith(
            f"Error: alice is waiting for bob's reply to request {request_id} ("
        )
        assert refused.endswith(
            "a member that waits for a reply may not send a new request. Send a plain message "
            "instead, or wait for the reply."
        )
        assert results[2] == (
            "Error: no member named 'carol' in the team (members: team-lead, alice, bob)",
            True,
        )
        alice = member(status(repo, team), "alice")
        moves = [(e["before"], e["after"]) for e in alice["events"]]
        assert moves[:3] == [("idle", "requesting"), ("requesting", "waiting"), ("waiting", "idle")]
        bob = member(status(repo, team), "bob")
        assert [(e["before"], e["after"]) for e in bob["events"]][:2] == [
            ("idle", "responding"),
            ("responding", "idle"),
        ]
    finally:
        lead.close()
        down = tether(repo, "team", "down", team)
    # Each approved its shutdown request: none had to be stopped by a signal.
    assert sorted(down.splitlines()) == [
        "alice: asked to shut down",
        "alice: stopped",
        "bob: asked to shut down",
        "bob: stopped",
    ]


def test_a_message_arriving_mid_turn_reaches_the_next_model_call(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = new_team()
    arrived = threading.Event()

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "first":
            wait_for(
                lambda: member(status(repo, team), "alice")["current_task"] == "first",
                "status to show the message the model was given",
            )
            tether(repo, "team", "send", team, "alice", "second")
            # alice takes it while her turn runs; her model has not seen it yet, so status
            # still shows the first as her current task.
            log = repo / ".tether" / "teams" / team / "alice.log"
            wait_for(lambda: "came during the turn: steered in" in log.read_text(), "alice")
            assert member(status(repo, team), "alice")["current_task"] == "first"
            arrived.set()
            return tool_use("SendMessage", to="team-lead", message="working on first")
        if letters and letters[0].body == "second":  # steered in: the first call to hold it
            wait_for(
                lambda: member(status(repo, team), "alice")["current_task"] == "second",
                "status to show the message the model was given",
            )
            return text(f"{mate} saw: {request.last_user_text()}")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    tether(repo, "team", "up", team, "--member", "alice")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "first")
        got = lead_reads_until(lead, "alice saw")
        assert arrived.is_set()
        second_call = [r for r in model_env.requests if member_of(r) == "alice"][1]
        steered = letters_in(second_call.last_user_text())
        assert [(x.sender, x.kind, x.body) for x in steered] == [("team-lead", "message", "second")]
        assert second_call.tool_results() == ["Message sent to team-lead (id " + got[0].id + ")"]
        # The second message was taken in that turn: no turn of its own.
        firsts = [r for r in model_env.requests if member_of(r) == "alice" and not r.tool_results()]
        assert len(firsts) == 1
    finally:
        lead.close()
        tether(repo, "team", "down", team)


@pytest.mark.parametrize("prompt_hook", [False, True], ids=["no-hook", "prompt-hook"])
def test_a_killed_teammate_restarted_resumes_its_session_with_its_unread_messages(
    repo: Path, model_env: FakeModelServer, prompt_hook: bool
) -> None:
    if prompt_hook:  # the prompt reaches the session only once a hook's process has ended
        trust_with_hook(repo, "UserPromptSubmit", "#!/bin/bash\ncat >/dev/null\n")
    team = new_team()
    held = threading.Event()
    release = threading.Event()

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[-1].body == "first" and not release.is_set():
            held.set()
            release.wait(WAIT_S)
            return text("never read: the process is gone")
        return polite(mate, letters, request)

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        steered = letters_in(request.last_user_text())  # came in while its tools ran
        return polite(mate, steered, request) if steered else text(f"{mate} done")

    model_env.responder = mate_answers(answer, after_tools=after_tools)
    tether(repo, "team", "up", team, "--member", "alice")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "first")
        assert held.wait(WAIT_S)
        before = member(status(repo, team), "alice")
        os.kill(before["pid"], signal.SIGKILL)
        wait_for(lambda: not member(status(repo, team), "alice")["running"], "alice to be gone")
        tether(repo, "team", "send", team, "alice", "second")
        release.set()
        # The first is in its session (its file has it) but its model never began to answer
        # it (until then a prompt refused as too long is taken back out of the session): not
        # acknowledged yet, so both are unread; the next start drops the first by its id.
        assert member(status(repo, team), "alice")["unread"] == 2
        out = tether(repo, "team", "up", team)
        assert "alice: started (pid " in out
        got = lead_reads_until(lead, "alice got: second")
        # The first, in its session but never answered: its turn runs again; then the second.
        assert [m.text for m in got if m.kind == "message"] == [
            "alice got: first",
            "alice got: second",
        ]
        after = wait_state(repo, team, "alice", "idle")
        assert after["session_id"] == before["session_id"]
        assert after["unread"] == 0
        last = [r for r in model_env.requests if member_of(r) == "alice"][-2]
        shown = letters_in("\n".join(content_text(m.get("content")) for m in last.messages()))
        assert [x.body for x in shown] == ["first", "second"]  # each once, in order
    finally:
        lead.close()
        tether(repo, "team", "down", team)


def trust_with_hook(repo: Path, event: str, script: str) -> None:
    """Trust `repo` and give it one command hook for `event`, running `script`."""
    from tether.config.settings import tether_home
    from tether.config.trust import record_trust

    assert record_trust(repo, True, tether_home=tether_home(), user_home=Path.home())
    hook = repo / f"{event}.sh"
    hook.write_text(script)
    hook.chmod(0o755)
    (repo / ".tether").mkdir(exist_ok=True)
    (repo / ".tether" / "settings.json").write_text(
        json.dumps({"hooks": {event: [{"hooks": [{"type": "command", "command": str(hook)}]}]}})
    )


def test_a_teammate_idle_hook_exiting_2_keeps_it_working(
    repo: Path, model_env: FakeModelServer
) -> None:
    trust_with_hook(
        repo,
        "TeammateIdle",
        "#!/bin/bash\ninput=$(cat)\n"
        'if [ ! -f "$CLAUDE_PROJECT_DIR/once" ]; then\n'
        '  echo "$input" > "$CLAUDE_PROJECT_DIR/once"\n'
        "  echo 'run the tests too' >&2; exit 2\nfi\n",
    )

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if "TeammateIdle hook: run the tests too" in request.last_user_text():
            return text(f"{mate} ran the tests")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "hi")
        got = lead_reads_until(lead, "alice ran the tests")
        assert [(m.kind, m.text) for m in got] == [
            ("message", "alice got: hi"),
            ("idle_notification", "alice ran the tests"),
        ]
        hook_input = json.loads((repo / "once").read_text())
        assert {k: hook_input[k] for k in ("hook_event_name", "teammate_name", "team_name")} == {
            "hook_event_name": "TeammateIdle",
            "teammate_name": "alice",
            "team_name": team,
        }
    finally:
        lead.close()
        tether(repo, "team", "down", team)


def test_a_teammate_in_plan_mode_writes_only_once_the_lead_approves_its_plan(
    repo: Path, model_env: FakeModelServer
) -> None:
    plans_then_writes(repo, model_env)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--plan")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "add c.txt")
        got = lead_reads_until(lead, "alice done")  # the idle notification after the request
        asked = [m for m in got if m.kind == "plan_approval_request"]
        assert asked[0].data == {"plan": "write c.txt"}
        assert not (repo / "c.txt").exists()
        assert member(status(repo, team), "alice")["state"] == "waiting"
        lead.send(
            Message(
                sender="team-lead",
                recipient="alice",
                kind="plan_approval_response",
                reply_to=asked[0].id,
                data={"approve": True},
            )
        )
        lead_reads_until(lead, "alice done")
        assert (repo / "c.txt").read_text() == "c\n"
        denied = next(
            r.tool_results()[0]
            for r in model_env.requests
            if member_of(r) == "alice" and r.tool_results()
        )
        assert "plan mode: only read-only tools run (Write is not)" in denied
        events = [
            (e["after"], e["plan_mode"]) for e in member(status(repo, team), "alice")["events"]
        ]
        assert events[-1] == ("idle", False)
    finally:
        lead.close()
        tether(repo, "team", "down", team)


def test_a_request_with_no_reply_in_time_returns_its_sender_to_idle_with_an_error(
    repo: Path, model_env: FakeModelServer
) -> None:
    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if "got no reply in time" in request.last_user_text():
            return tool_use("SendMessage", to="team-lead", message="bob never answered")
        if mate == "alice" and letters and letters[0].kind == "message":
            return tool_use("SendMessage", to="bob", message="ping?", request=True, timeout_s=1)
        if mate == "bob" and letters and letters[0].kind == "request":
            return text("bob ignores it")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--member", "bob")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "ask bob")
        lead_reads_until(lead, "bob never answered")
        told = next(
            r.last_user_text()
            for r in model_env.requests
            if member_of(r) == "alice" and "got no reply in time" in r.last_user_text()
        )
        assert "Error: request " in told
        assert " to bob got no reply in time: you are no longer waiting for it" in told
        alice = member(status(repo, team), "alice")
        moves = [(e["before"], e["after"], e["cause"].split()[-2:]) for e in alice["events"]]
        assert moves[:3] == [
            ("idle", "requesting", ["to", "bob"]),
            ("requesting", "waiting", ["bob", "stored"]),
            ("waiting", "idle", ["timed", "out"]),
        ]
    finally:
        lead.close()
        tether(repo, "team", "down", team)
