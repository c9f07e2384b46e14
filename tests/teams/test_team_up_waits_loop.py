"""`tether team up` says a teammate started only once its mailbox loop runs (the mark its
process writes, `loop_pid`), waiting for it (bounded, said on stderr); until then `team status`
says `starting`. Here the teammate's MCP server (the project's `.mcp.json`) waits for a gate
file before it answers, so its start-up lasts until the test opens it. Measured before: `up`
said "started" at the teammate's claim and returned, the member still `starting` (and a
teammate that died then was said started all the same).

A teammate still starting at `--start-wait` is ended and did not start: `up` says so, exit 1,
with its log's end, and the roster records it. A member whose start-up ran past its deadline
with nobody left to end it (its starter killed) is shown `did not start`, not `starting` for
ever (measured before: `starting` for as long as its process lived)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tether.teams.claims import pid_runs
from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import lead_reads_until, lead_store, member, new_team, status
from .test_team_down_while_starting import server_pid, up_with_a_silent_server
from .workers import WAIT_S, tether, wait_for

GATED_SERVER = """
import os, sys, time
from mcp.server.mcpserver import MCPServer

server = MCPServer("gated", log_level="WARNING")


@server.tool()
def hello() -> str:
    \"\"\"Says hello.\"\"\"
    return "hello"


if __name__ == "__main__":
    while not os.path.exists(sys.argv[1]):  # the test opens it
        time.sleep(0.02)
    server.run("stdio")
"""


def test_up_says_started_once_the_loop_runs_and_starting_until_then(
    repo: Path, model_env: FakeModelServer
) -> None:
    gate = repo.parent / "gate"
    (repo / "gated.py").write_text(GATED_SERVER)
    server = {"command": sys.executable, "args": [str(repo / "gated.py"), str(gate)]}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"gated": server}}))
    model_env.responder = mate_answers(polite)
    team = new_team()
    lead = lead_store(repo, team)
    up = subprocess.Popen(
        [sys.executable, "-m", "tether", "team", "up", team, "--member", "alice",
         "--trust-workspace"],
        cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert up.stderr is not None
        said = up.stderr.readline()
        assert said.startswith("waiting for alice to start ("), said
        assert "at most 120 s" in said, said
        wait_for(lambda: member(status(repo, team), "alice")["pid"] is not None, "the claim")
        alice = member(status(repo, team), "alice")
        assert (alice["state"], alice["running"], alice["loop_pid"]) == ("starting", True, None)
        assert up.poll() is None  # still waiting: not said started at the claim
        tether(repo, "team", "send", team, "alice", "hello there")  # kept meanwhile
        gate.write_text("")
        out, _ = up.communicate(timeout=WAIT_S)
        assert up.returncode == 0
        assert f"alice: started (pid {alice['pid']})" in out, out
        alice = member(status(repo, team), "alice")  # at once: its loop runs
        assert alice["loop_pid"] == alice["pid"], alice
        assert alice["state"] != "starting", alice
        lead_reads_until(lead, "alice done")
        tools = {t["name"] for t in model_env.requests[-1].body.get("tools", [])}
        assert "mcp__gated__hello" in tools
    finally:
        gate.write_text("")
        lead.close()
        if up.poll() is None:
            up.kill()
        up.communicate()
        tether(repo, "team", "down", team)


def test_a_teammate_still_starting_at_the_bound_did_not_start(
    repo: Path, model_env: FakeModelServer
) -> None:
    team, pid_file, up = up_with_a_silent_server(repo, model_env, start_wait_s=3, wait=False)
    try:
        out, err = up.communicate(timeout=WAIT_S)
        assert up.returncode == 1, (out, err)
        assert "waiting for m to start (each until its mailbox loop runs, at most 3 s)" in err
        assert "m: did not start (not running after 3 s: ended " in err, err
        m = member(status(repo, team), "m")
        assert (m["state"], m["running"], m["pid"]) == ("did_not_start", False, None)
        log = (repo / ".tether" / "teams" / team / "m.log").read_text().strip().splitlines()
        assert m["stopped_why"] == (log[-1].strip() if log else None)
        if pid_file.exists() and pid_file.read_text():  # it got as far as its MCP server
            wait_for(lambda: not pid_runs(server_pid(pid_file)), "its MCP server to end")
    finally:
        if pid_file.exists() and pid_file.read_text() and pid_runs(server_pid(pid_file)):
            os.kill(server_pid(pid_file), signal.SIGKILL)
        if up.poll() is None:
            up.kill()
            up.communicate()


def test_a_start_up_past_its_deadline_with_no_starter_left_did_not_start(
    repo: Path, model_env: FakeModelServer
) -> None:
    team, pid_file, up = up_with_a_silent_server(repo, model_env)
    try:
        up.kill()  # nobody is left to end it at the bound
        up.communicate()
        m = member(status(repo, team), "m")
        assert (m["state"], m["running"]) == ("starting", True)
        # Its deadline passed (as time would pass it): the record it holds then.
        store = lead_store(repo, team)
        try:
            store.update_member("m", {"start_by": time.time() - 1})
        finally:
            store.close()
        m = member(status(repo, team), "m")
        assert (m["state"], m["running"]) == ("did_not_start", True), m
        line = next(
            line for line in tether(repo, "team", "status", team).splitlines() if "  m  " in line
        )
        assert "did not start (see " in line, line
        assert " running" in line, line
        assert "m: stopped" in tether(repo, "team", "down", team, "--wait", "1")
    finally:
        if pid_runs(server_pid(pid_file)):
            os.kill(server_pid(pid_file), signal.SIGKILL)
