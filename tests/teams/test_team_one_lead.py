"""One live lead per team: a session that would lead a team again (`--continue`, `--resume`)
while the session leading it still runs is told who leads and does not read the lead's mail;
once that one has ended, it leads (its lease, pid and start time, in the roster)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process

from .mates import member, status
from .test_team_lead import lead_env
from .workers import WAIT_S, tether, wait_for


def test_a_second_session_does_not_lead_a_team_whose_lead_still_runs(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"
    gate = repo / "gate.fifo"
    os.mkfifo(gate)
    heard: dict[str, bool] = {}

    def respond(request: RecordedRequest) -> Turn:
        said = json.dumps(request.messages())
        if "who leads" in request.last_user_text():
            heard[request.last_user_text()] = "NUM one" in said
            return text("second done")
        heard["start"] = "NUM one" in said
        results = request.tool_results()
        if not results:
            return tool_use("TeamCreate", team_name=team)
        if results[0].startswith("Team "):
            return tool_use("Bash", command=f"read line < {gate}; echo $line")
        # The lead's mailbox is read while it works, not at the instant a tool ends: it
        # works on (short calls) until the mail is in its model's input, as a lead would.
        waits = said.count("echo waited")
        if "NUM one" not in said and waits < 300:
            return tool_use("Bash", command="sleep 0.1; echo waited")
        return text("first done")

    model_env.responder = respond
    first = subprocess.Popen(
        [sys.executable, "-m", "tether", "-p", "start", "--dangerously-skip-permissions"],
        cwd=repo,
        env=lead_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def leading() -> bool:
            try:
                return member(status(repo, team), "team-lead").get("state") is not None
            except (AssertionError, ValueError, StopIteration):
                return False

        wait_for(leading, "the first session to lead the team")
        second = run_cli_process(
            ["-p", "who leads", "--continue"], env=lead_env(), cwd=repo, timeout_s=WAIT_S
        )
        assert second.exit_code == 0, second.stderr
        assert f"team {team} is led by another session that still runs (pid {first.pid}" in (
            second.stderr
        )
        assert "--continue" in second.stderr
        tether(repo, "team", "send", team, "team-lead", "NUM one")
        with gate.open("w") as w:  # the first lead's Bash call ends: it reads its mail
            w.write("go\n")
        _out, err = first.communicate(timeout=WAIT_S)
        assert first.returncode == 0, err
        assert heard == {"start": True, "who leads": False}  # the mail went to the first
        third = run_cli_process(
            ["-p", "who leads now", "--continue"], env=lead_env(), cwd=repo, timeout_s=WAIT_S
        )
        assert third.exit_code == 0, third.stderr
        assert f"leading team {team} again" in third.stderr
        assert member(status(repo, team), "team-lead")["unread"] == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
        tether(repo, "team", "down", team)
