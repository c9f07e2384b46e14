"""Bad input to `tether team` and to a lead's tools: precise errors, nothing started, nothing
lost."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from tether.store.mailbox import Member, TeamRecord, open_team_store
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process

from .workers import WAIT_S


def team_of(repo: Path, *members: str) -> str:
    """A team recorded in the project's store (no process started)."""
    team = f"t-{uuid.uuid4().hex[:8]}"
    store = open_team_store(None, project=repo, team=team)
    try:
        store.create_team(TeamRecord(name=team))
        for name in ("team-lead", *members):
            store.put_member(Member(name=name))
    finally:
        store.close()
    return team


def run(repo: Path, *argv: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = run_cli_process(list(argv), env=env or dict(os.environ), cwd=repo, timeout_s=WAIT_S)
    return done.exit_code, done.stdout, done.stderr


def test_team_commands_name_what_is_wrong(repo: Path, model_env: FakeModelServer) -> None:
    team = team_of(repo, "alice")
    assert run(repo, "team", "send", team, "carol", "hi") == (
        2,
        "",
        f"tether: error: no member named 'carol' in team {team} (members: team-lead, alice)\n",
    )
    store = repo / ".tether" / "tasks.db"
    assert run(repo, "team", "send", "nope", "alice", "hi") == (
        2,
        "",
        f"tether: error: no team named 'nope' in {store}: start it with tether team up\n",
    )
    for command in (["status", "nope"], ["status", "nope", "--json"], ["inbox", "nope"]):
        assert run(repo, "team", *command) == (
            2,
            "",
            f"tether: error: no team named 'nope' in {store}: start it with tether team up\n",
        ), command
    code, _, err = run(repo, "team", "up", team, "--member", "bad name")
    assert (code, err) == (
        2,
        "tether: error: member name 'bad name': use letters, digits, '-', '_' or '.', starting "
        "with a letter or digit, at most 64 characters\n",
    )
    code, _, err = run(repo, "team", "up", team, "--member", "team-lead")
    assert (code, err) == (2, "tether: error: team-lead is the team's lead, not a teammate\n")
    assert model_env.requests == []
    # The message that could not be sent is not half-sent anywhere.
    kept = open_team_store(None, project=repo, team=team)
    try:
        assert [kept.unread(n) for n in ("team-lead", "alice")] == [0, 0]
    finally:
        kept.close()


def test_a_lead_cannot_create_a_team_another_live_lead_leads(
    repo: Path, model_env: FakeModelServer
) -> None:
    """A team with no live lead is taken up (`test_team_cli_lead`); one a running session
    leads (this test's process, here) is refused, naming it."""
    from tether.teams.claims import claim_lead

    team = team_of(repo, "alice")
    store = open_team_store(None, project=repo, team=team)
    try:
        assert not isinstance(claim_lead(store, "team-lead"), str)
    finally:
        store.close()

    def lead(request: RecordedRequest) -> Turn:
        if not request.tool_results():
            return tool_use("TeamCreate", team_name=team)
        return text("ok")

    model_env.responder = lead
    env = {**os.environ, "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"}
    code, _, err = run(repo, "-p", "make a team", env=env)
    assert code == 0, err
    result = model_env.requests[1].tool_results()[0]
    assert result.startswith(f"Error: team {team!r} exists (lead 'team-lead', created ")
    led = f"team {team} is led by another session that still runs (pid {os.getpid()} on "
    assert f"): pick another name; {led}" in result
    assert model_env.requests[1].tool_result_errors() == [True]


def test_team_up_refuses_a_member_given_twice_or_an_agent_that_does_not_exist(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = team_of(repo, "alice")
    assert run(repo, "team", "up", team, "--member", "bob", "--member", "bob=Explore") == (
        2,
        "",
        "tether: error: --member bob is given twice (bob, bob=Explore): once each\n",
    )
    assert run(repo, "team", "up", team, "--member", "alice=Explore") == (
        2,
        "",
        f"tether: error: alice is a member of team {team} already, as general-purpose (no "
        "agent named), not Explore: leave out '=Explore' or choose another name\n",
    )
    code, _, err = run(repo, "team", "up", team, "--member", "carol=NoSuchAgent")
    assert code == 2
    assert err.startswith(
        "tether: error: --member carol=NoSuchAgent: no agent named 'NoSuchAgent' (agents: "
    )
    assert run(repo, "team", "send", team, "alice", " \n") == (
        2,
        "",
        "tether: error: an empty message to alice: nothing sent\n",
    )
    store = open_team_store(None, project=repo, team=team)
    try:
        assert [(m.name, m.state) for m in store.members()] == [
            ("team-lead", "starting"),
            ("alice", "starting"),
        ]
        assert store.unread("alice") == 0
    finally:
        store.close()


def test_a_teammate_that_cannot_start_is_recorded_did_not_start(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = team_of(repo)
    store = open_team_store(None, project=repo, team=team)
    try:
        store.put_member(Member(name="dora", agent="Vanished"))  # its agent file since removed
        code, _, err = run(repo, "team", "up", team)
        assert code == 1
        assert "dora: did not start (exit 2)" in err
        assert "no agent named 'Vanished'" in err
        dora = next(m for m in store.members() if m.name == "dora")
        assert (dora.state, dora.pid) == ("did_not_start", None)
    finally:
        store.close()


def test_up_says_a_teammate_whose_model_is_unknown_did_not_start(
    repo: Path, model_env: FakeModelServer
) -> None:
    """Failed before: `up` said "started" (exit 0) and `status` said "starting" for good."""
    team = team_of(repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}  # no fallback
    argv = ("team", "up", team, "--member", "c", "--model", "nosuchprovider/foo")
    code, out, err = run(repo, *argv, env=env)
    assert (code, out) == (1, "")
    assert "c: did not start (exit 2)" in err
    assert "Unknown model 'nosuchprovider/foo'" in err
    store = open_team_store(None, project=repo, team=team)
    try:
        c = next(m for m in store.members() if m.name == "c")
        assert (c.state, c.pid) == ("did_not_start", None)
    finally:
        store.close()
