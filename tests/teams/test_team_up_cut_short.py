"""`tether team up` cut short while its teammates start, and what a teammate leaves when it
dies. Each MCP server here writes its pid to `<member>.pid` beside the repository; the one of
member `slow` never answers (its teammate stays starting), the one of any other answers, then
outlives its stdin (a server with work of its own), so only a signal ends it.

Measured before: Ctrl+C left the teammates it started running, nothing said (a traceback);
after `up` was killed (SIGKILL) its forked teammate, not yet past its own claim, was recorded
as a start claim of a dead starter (`team status`: did not start, nothing running) while it
ran, and a second `up` started another; a second `up` said a teammate still starting was
`running already`, or waited 120 s (not its --start-wait) for one another `up` started;
`team down` waited its whole --wait for a teammate still starting; an MCP server of a
teammate killed with SIGKILL ran on (ppid 1), and later, with the parent-death signal on the
server alone, the server's own child (npx's node) did; SIGTERM or SIGHUP of `up` ended it
with no word (status 143), its members starting on."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tether.store.mailbox import open_team_store
from tether.teams.claims import pid_runs, team_processes
from tether.testing import FakeModelServer
from tether.testing.cli_runner import run_cli_process
from tether.testing.teammates import mate_answers, polite

from .mates import member, new_team, status
from .workers import WAIT_S, tether, wait_for

SERVER = """
import json, os, sys, time
from pathlib import Path



def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def member_name() -> str:
    # Its teammate's name, by the mark the teammate holds (a memfd, forked) or was started
    # with (its environment): the server's own environment has no tether variable. Looked
    # for up its ancestors, whatever stands between the teammate and the server.
    ancestor = os.getppid()
    while ancestor > 1:
        place = f"/proc/{ancestor}"
        for fd in os.listdir(place + "/fd"):
            target = os.readlink(f"{place}/fd/{fd}")
            if "TETHER_TEAM_RUN=" in target:
                return target.removesuffix(" (deleted)").rsplit(":", 1)[1]
        for item in Path(place + "/environ").read_bytes().split(b"\\0"):
            if item.startswith(b"TETHER_TEAM_RUN="):
                return json.loads(item.split(b"=", 1)[1])[2]
        ancestor = parent_of(ancestor)
    raise SystemExit("no teammate's mark")


name = member_name()
Path(sys.argv[1], name + ".pid").write_text(str(os.getpid()))
if os.fork() == 0:  # a child of its own, as npx's node or uv's python: it must end too
    Path(sys.argv[1], name + ".child.pid").write_text(str(os.getpid()))
    while True:
        time.sleep(1)
if name == "slow":
    while True:
        time.sleep(1)  # never answers: its teammate stays starting
from mcp.server.mcpserver import MCPServer

server = MCPServer("kept", log_level="WARNING")


@server.tool()
def hello() -> str:
    \"\"\"Says hello.\"\"\"
    return "hello"


server.run("stdio")
while True:
    time.sleep(1)  # its client gone: it runs on until a signal ends it
"""


def _project(repo: Path, model_env: FakeModelServer) -> Path:
    """The MCP server configured; the folder its pid files go to."""
    pids = repo.parent / "pids"
    pids.mkdir()
    (repo / "kept.py").write_text(SERVER)
    server = {"command": sys.executable, "args": [str(repo / "kept.py"), str(pids)]}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"kept": server}}))
    model_env.responder = mate_answers(polite)
    return pids


def _up(repo: Path, team: str, *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", "team", "up", team, "--trust-workspace", *argv],
        cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _server_pid(pids: Path, name: str) -> int:
    path = pids / f"{name}.pid"
    wait_for(lambda: path.exists() and path.read_text() != "", f"{name}'s MCP server")
    return int(path.read_text())


def _kill_servers(pids: Path) -> None:
    for path in pids.glob("*.pid"):
        if path.read_text() and pid_runs(int(path.read_text())):
            os.kill(int(path.read_text()), signal.SIGKILL)


def test_a_start_left_by_a_killed_up_is_seen_waited_for_by_bound_and_stopped_at_once(
    repo: Path, model_env: FakeModelServer
) -> None:
    pids = _project(repo, model_env)
    team = new_team()
    up = _up(repo, team, "--member", "slow", "--start-wait", "600")
    try:
        assert up.stderr is not None
        said = up.stderr.readline()
        assert said.startswith("waiting for slow to start ("), said
        up.kill()  # SIGKILL: it says nothing more, ends nothing
        up.communicate()
        slow = member(status(repo, team), "slow")
        store = open_team_store(None, project=repo, team=team)
        try:
            running = [(p.pid, p.member) for p in team_processes(store)]
        finally:
            store.close()
        assert running == [(slow["pid"], "slow")], slow  # the record names the live process
        assert (slow["state"], slow["running"]) == ("starting", True)
        server = _server_pid(pids, "slow")

        again = run_cli_process(
            ["team", "up", team, "--start-wait", "1"], cwd=repo, timeout_s=WAIT_S
        )
        host, pid = socket.gethostname(), slow["pid"]
        assert again.exit_code == 1, again.stderr
        assert again.stdout == ""
        assert again.stderr.splitlines() == [
            f"waiting for slow (being started by another process: its process is pid {pid} "
            f"on {host}) to start (each until its mailbox loop runs, at most 1 s)",
            f"slow: still starting after 1 s (pid {pid}, started by another process): "
            "`tether team status` shows it, `tether team down` stops it",
        ]
        assert member(status(repo, team), "slow")["pid"] == pid  # left to run: not its start

        out = tether(repo, "team", "down", team, "--wait", "600")  # not waited for: stopped
        assert out.splitlines() == ["slow: stopped (still starting: SIGTERM at once)"]
        wait_for(lambda: not pid_runs(server), "its MCP server to end")
        slow = member(status(repo, team), "slow")
        assert (slow["state"], slow["running"], slow["pid"]) == ("did_not_start", False, None)
        assert not pid_runs(pid)
    finally:
        _kill_servers(pids)
        if up.poll() is None:
            up.kill()
            up.communicate()
        tether(repo, "team", "down", team)


@pytest.mark.parametrize(
    ("stop", "how"),
    [
        (signal.SIGINT, "tether: interrupted"),
        (signal.SIGTERM, "tether: stopped by SIGTERM"),  # `timeout`, a CI's cancel, systemd
        (signal.SIGHUP, "tether: stopped by SIGHUP"),
    ],
)
def test_a_stop_signal_keeps_a_started_teammate_and_ends_one_still_starting(
    repo: Path, model_env: FakeModelServer, stop: signal.Signals, how: str
) -> None:
    pids = _project(repo, model_env)
    team = new_team()
    up = _up(repo, team, "--member", "quick", "--member", "slow", "--start-wait", "600")
    try:
        assert up.stderr is not None
        said = up.stderr.readline()
        wait_for(lambda: member(status(repo, team), "quick")["state"] == "idle", "quick's loop")
        slow_server = _server_pid(pids, "slow")
        quick = member(status(repo, team), "quick")
        slow = member(status(repo, team), "slow")
        up.send_signal(stop)
        out, err = up.communicate(timeout=WAIT_S)
        assert up.returncode == 128 + stop, (out, err)
        assert out == f"quick: started (pid {quick['pid']}), 0 unread message(s): it runs\n"
        lines = err.splitlines()
        assert said.startswith("waiting for quick, slow to start ("), said
        assert lines[0] == f"{how}: what was still starting is ended", err
        assert (
            lines[1] == "slow: did not start (still starting when interrupted: ended by SIGTERM):"
        )
        assert lines[-1] == f"stop them with: tether team down {team}", err
        wait_for(lambda: not pid_runs(slow_server), "slow's MCP server to end")
        after = status(repo, team)
        assert (member(after, "slow")["state"], member(after, "slow")["running"]) == (
            "did_not_start",
            False,
        )
        assert not pid_runs(slow["pid"])
        assert member(after, "quick")["pid"] == quick["pid"]
        assert pid_runs(quick["pid"])
    finally:
        _kill_servers(pids)
        if up.poll() is None:
            up.kill()
            up.communicate()
        tether(repo, "team", "down", team)


def test_a_teammates_mcp_server_ends_when_the_teammate_is_killed(
    repo: Path, model_env: FakeModelServer
) -> None:
    pids = _project(repo, model_env)
    team = new_team()
    try:
        tether(repo, "team", "up", team, "--member", "quick", "--trust-workspace")
        quick = member(status(repo, team), "quick")
        server, child = _server_pid(pids, "quick"), _server_pid(pids, "quick.child")
        group = os.getpgid(server)
        assert os.getpgid(child) == group != os.getpgid(quick["pid"])  # a group of their own
        os.kill(quick["pid"], signal.SIGKILL)
        wait_for(lambda: not pid_runs(server), "its MCP server to end with it")
        wait_for(lambda: not pid_runs(child), "the server's own child to end with it")
    finally:
        _kill_servers(pids)
        tether(repo, "team", "down", team)
