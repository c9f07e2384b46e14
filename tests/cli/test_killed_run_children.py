"""What a tether killed with SIGKILL left running besides its commands: a command hook in the
middle of its run and a stdio MCP server in the middle of a call. Each carries the run's
marker, so the next tether that starts stops it and says so. Real tether processes, really
killed; a real MCP server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tether.testing import FakeModelServer, reply, text, tool_use

from .test_killed_runs import Run, _alive, _gone, _kill_survivors, _start, _wait_for_pid

NAPPING_SERVER = """
import os, sys, time
from mcp.server.mcpserver import MCPServer

server = MCPServer("napper", log_level="WARNING")


@server.tool()
def nap() -> str:
    \"\"\"Sleeps for long.\"\"\"
    with open(sys.argv[1], "w") as f:
        f.write(str(os.getpid()))
    time.sleep(600)
    return "rested"


if __name__ == "__main__":
    server.run("stdio")
"""


def _killed_then_started_again(
    fake_model: FakeModelServer, tether: Run, workspace: Path, pid_file: str
) -> tuple[subprocess.Popen[str], int, str]:
    """Start tether, SIGKILL it once `pid_file` is written, then start another: the pid
    written and the second start's stderr."""
    proc = _start(workspace, "-p", "work", "--permission-mode", "bypassPermissions")
    left = _wait_for_pid(workspace / pid_file, proc)
    try:
        proc.kill()
        proc.communicate(timeout=30)
        assert _alive(left)  # what a SIGKILLed tether leaves running
        fake_model.reset()
        fake_model.script(reply(text("clean")))
        result = tether("-p", "hello again")
        assert (result.exit_code, result.stdout) == (0, "clean\n"), result.stderr
        assert _gone(left)
    finally:
        _kill_survivors([left])
    return proc, left, result.stderr


def test_a_hook_a_killed_tether_left_running_is_stopped_at_the_next_start(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    workspace = trusted_workspace
    hook = {"type": "command", "command": "sleep 600 & echo $! > hook.pid; wait"}
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text(
        json.dumps(
            {
                "sandbox": {"enabled": False},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]},
            }
        )
    )
    fake_model.script(reply(tool_use("Bash", command="echo ran > ran.txt")), reply(text("done")))
    proc, _, stderr = _killed_then_started_again(fake_model, tether, workspace, "hook.pid")
    assert not (workspace / "ran.txt").exists()
    said = [line for line in stderr.splitlines() if "killed without cleaning up" in line]
    assert said == [
        f"tether: an earlier tether (pid {proc.pid}, session {said[0].split('session ')[1][:36]}) "
        "was killed without cleaning up: stopped 2 process(es) it left running."
    ], stderr


def test_an_mcp_server_a_killed_tether_left_in_a_call_is_stopped_at_the_next_start(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    workspace = trusted_workspace
    server = workspace / "napper.py"
    server.write_text(NAPPING_SERVER)
    (workspace / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "napper": {
                        "command": sys.executable,
                        "args": [str(server), str(workspace / "server.pid")],
                    }
                }
            }
        )
    )
    fake_model.script(reply(tool_use("mcp__napper__nap")), reply(text("done")))
    proc, _, stderr = _killed_then_started_again(fake_model, tether, workspace, "server.pid")
    said = [line for line in stderr.splitlines() if "killed without cleaning up" in line]
    assert len(said) == 1, stderr
    assert f"an earlier tether (pid {proc.pid}, " in said[0]
    assert said[0].endswith("stopped 1 process(es) it left running.")
