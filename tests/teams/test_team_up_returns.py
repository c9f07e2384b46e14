"""`tether team up` returns once each teammate's process has claimed its member, not once the
teammate is ready: its mailbox keeps what the lead sends meanwhile. Here the teammate's MCP
server (the project's `.mcp.json`) waits for a gate file before it answers, so the teammate
is not ready until the test opens it, after `up` returned and a message was sent. Measured
before: `up` waited for the teammate to be ready (its state past `starting`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import lead_reads_until, lead_store, member, new_team, status
from .workers import tether

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


def test_up_returns_before_its_teammate_is_ready_and_the_message_waits(
    repo: Path, model_env: FakeModelServer
) -> None:
    gate = repo.parent / "gate"
    (repo / "gated.py").write_text(GATED_SERVER)
    server = {"command": sys.executable, "args": [str(repo / "gated.py"), str(gate)]}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"gated": server}}))
    model_env.responder = mate_answers(polite)
    team = new_team()
    lead = lead_store(repo, team)
    try:
        out = tether(repo, "team", "up", team, "--member", "alice", "--trust-workspace")
        assert "alice: started (pid " in out
        alice = member(status(repo, team), "alice")
        assert (alice["state"], alice["running"]) == ("starting", True)  # not ready yet
        tether(repo, "team", "send", team, "alice", "hello there")
        gate.write_text("")
        lead_reads_until(lead, "alice done")
        tools = {t["name"] for t in model_env.requests[-1].body.get("tools", [])}
        assert "mcp__gated__hello" in tools
    finally:
        gate.write_text("")
        lead.close()
        tether(repo, "team", "down", team)
