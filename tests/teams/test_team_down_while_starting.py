"""A stop that reaches a teammate while it starts (`team down` right after `up`, its MCP
server still starting) ends what was started: the server is not left running, and the log
says it stopped. Failed before: the stop handling came after the servers were connected, so
SIGTERM killed the teammate at once, its MCP server left running (ppid 1), its log empty."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tether.teams.claims import pid_runs
from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import member, new_team, status
from .workers import WAIT_S, tether, wait_for

SILENT_SERVER = """
import os, sys, time
from pathlib import Path

Path(sys.argv[1]).write_text(str(os.getpid()))
try:
    os.setsid()  # its own session: only its client's close ends it
except PermissionError:
    pass  # its own already
while True:
    time.sleep(1)  # never answers
"""


def up_with_a_silent_server(
    repo: Path, model_env: FakeModelServer, *, start_wait_s: float = 600.0, wait: bool = True
) -> tuple[str, Path, subprocess.Popen[str]]:
    """A team whose member `m` is starting (its MCP server never answers): the team's name,
    the file the server writes its pid to (`wait`: once it has), and `team up`, waiting for
    `m` to start."""
    pid_file = repo.parent / "server.pid"
    (repo / "silent.py").write_text(SILENT_SERVER)
    server = {"command": sys.executable, "args": [str(repo / "silent.py"), str(pid_file)]}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"silent": server}}))
    model_env.responder = mate_answers(polite)
    team = new_team()
    up = subprocess.Popen(
        [sys.executable, "-m", "tether", "team", "up", team, "--member", "m",
         "--trust-workspace", "--start-wait", f"{start_wait_s:g}"],
        cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    if wait:
        wait_for(lambda: pid_file.exists() and pid_file.read_text() != "", "its MCP server")
    return team, pid_file, up


def server_pid(pid_file: Path) -> int:
    return int(pid_file.read_text())


def test_down_while_an_mcp_server_starts_ends_the_server(
    repo: Path, model_env: FakeModelServer
) -> None:
    team, pid_file, up = up_with_a_silent_server(repo, model_env)
    server_pid = int(pid_file.read_text())
    try:
        assert member(status(repo, team), "m")["state"] == "starting"
        out = tether(repo, "team", "down", team, "--wait", "1")
        assert "m: stopped" in out
        wait_for(lambda: not pid_runs(server_pid), "its MCP server to end")
        # `up`, which waited for it, says it did not start.
        said = up.communicate(timeout=WAIT_S)[1]
        assert up.returncode == 1
        assert "m: did not start (ended by SIGTERM)" in said, said
    finally:
        if pid_runs(server_pid):
            os.kill(server_pid, signal.SIGKILL)
        if up.poll() is None:
            up.kill()
            up.communicate()
    log = (repo / ".tether" / "teams" / team / "m.log").read_text()
    assert "m: stopped (stopped by SIGTERM, while starting)" in log
