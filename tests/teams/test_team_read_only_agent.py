"""A teammate of a read-only agent type (Explore) is labelled what it is in `team status`, not
plan mode, which it never asked for; it stays read-only, its denials say so (not plan mode),
and its plan_approval_request is refused, saying why: no approval can make it writable.
Measured before: its denials began "plan mode: only read-only tools run", and its plan request
was sent, leaving it waiting up to 600 s for nothing.
A teammate started with `--plan` keeps plan mode's label. Measured before: the Explore
teammate was shown "plan mode (read-only)" (`plan_mode` true in `--json`), and so was one
started with `--plan` (as if an approval could help it); then, labelled read-only, the one
started with `--plan` still had `plan_mode: true` in `--json`."""

from __future__ import annotations

from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import Letter, mate_answers, member_of, polite

from .mates import lead_reads_until, lead_store, member, new_team, status
from .workers import tether, wait_for


def test_an_explore_teammate_is_read_only_not_in_plan_mode(
    repo: Path, model_env: FakeModelServer
) -> None:
    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "write":
            return tool_use("Write", file_path=str(repo / f"{mate}.txt"), content="x\n")
        return polite(mate, letters, request)

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        said = request.tool_results()[0]
        if said.startswith("Permission denied"):
            plan = {"type": "plan_approval_request", "plan": "write alice.txt"}
            return tool_use("SendMessage", to="team-lead", message=plan)
        return text(f"{mate} done: {said}")

    model_env.responder = mate_answers(answer, after_tools=after_tools)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice=Explore")
    tether(repo, "team", "up", team, "--member", "bob", "--member", "carol=Explore", "--plan")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "write")
        got = lead_reads_until(lead, "alice done")
        assert [m.kind for m in got if m.kind.startswith("plan")] == []
        denied = next(
            r.tool_results()[0]
            for r in model_env.requests
            if member_of(r) == "alice" and r.tool_results()
        )
        assert denied.startswith(
            "Permission denied: a read-only Explore agent runs only read-only tools (Write is "
            "not). You are a read-only Explore agent: you cannot change files"
        ), denied
        assert "plan" not in denied
        said = got[-1].text  # its plan_approval_request refused, saying why
        assert "alice is a read-only Explore agent: no approval can make it writable" in said
        assert not (repo / "alice.txt").exists()
        record = status(repo, team)
        alice, bob = member(record, "alice"), member(record, "bob")
        assert (alice["read_only"], alice["plan_mode"]) == (True, False)
        assert (bob["read_only"], bob["plan_mode"]) == (True, True)  # until its plan is approved
        assert (alice["read_only_as"], bob["read_only_as"]) == ("Explore agent", "plan mode")
        wait_for(lambda: member(status(repo, team), "carol")["read_only"], "carol started")
        carol = member(status(repo, team), "carol")
        assert (carol["read_only"], carol["plan_mode"]) == (True, False)  # as its label says
        recorded = next(m for m in lead.members() if m.name == "carol")
        assert (recorded.read_only, recorded.plan_mode) == (True, False)
        lines = tether(repo, "team", "status", team).splitlines()
        alice_line = next(line for line in lines if line.strip().startswith("alice "))
        bob_line = next(line for line in lines if line.strip().startswith("bob "))
        assert "read-only (Explore agent)" in alice_line
        assert "plan mode" not in alice_line
        assert "plan mode (read-only)" in bob_line
        carol_line = next(line for line in lines if line.strip().startswith("carol "))
        assert "read-only (Explore agent)" in carol_line
        assert "plan mode" not in carol_line
    finally:
        lead.close()
        tether(repo, "team", "down", team)
