"""`tether team up --trust-workspace`: the option the teammate's untrusted-workspace notice
names, which runs what the project's files declare (here an allow rule) in its sessions."""

from __future__ import annotations

import json
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import Letter, mate_answers, polite

from .mates import lead_reads_until, lead_store, new_team
from .workers import tether


def test_team_up_with_trust_workspace_runs_the_projects_allow_rules(
    repo: Path, model_env: FakeModelServer
) -> None:
    (repo / ".tether").mkdir(exist_ok=True)
    (repo / ".tether" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Write"]}})
    )
    write = tool_use("Write", file_path=str(repo / "c.txt"), content="c\n")

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].kind == "message":
            return write
        return polite(mate, letters, request)

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        return text(f"{mate} done: {request.tool_results()[0][:60]}")

    model_env.responder = mate_answers(answer, after_tools=after_tools)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", "--trust-workspace")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "add c.txt")
        lead_reads_until(lead, "alice done")
        assert (repo / "c.txt").read_text() == "c\n"
        log = next((repo / ".tether").rglob("alice*.log")).read_text()
        assert "--trust-workspace" not in log  # no untrusted-workspace notice
    finally:
        lead.close()
        tether(repo, "team", "down", team)
