"""`/mcp` in the REPL on a real terminal: each server with its state and its tools' names, and
`/mcp reconnect|disable|enable SERVER` acting on a real stdio server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tests.cli.test_repl_commands import TURN_END, anthropic_only
from tether.cli.repl import CLEARED
from tether.testing import FakeModelServer, reply, text, tool_use

PID_SERVER = Path(__file__).parent / "servers" / "pid_server.py"


def _add_pid_server(workspace: Path, env: dict[str, str], home: Path) -> None:
    add = [sys.executable, "-m", "tether", "mcp", "add", "-s", "user", "pids", "--"]
    command = [sys.executable, str(PID_SERVER)]
    subprocess.run([*add, *command], cwd=workspace, env=env, check=True, capture_output=True)
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["mcp__pids"]}}))


def _connected(repl: PtyRepl) -> None:
    """`/mcp` until the server (connecting in the background) is listed as connected."""
    for asked in range(1, 200):
        repl.send("/mcp\r")
        repl.wait_for("/mcp [reconnect", count=asked)
        if "pids                 connected  1 tool" in repl.screen:
            return
    raise AssertionError(repl.screen[-2000:])


@pytest.mark.timeout(120)
def test_mcp_lists_tools_and_reconnects_a_server(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    env = anthropic_only(home)
    _add_pid_server(workspace, env, home)
    model_env.script(
        reply(tool_use("mcp__pids__pid")),
        reply(text("First pid.")),
        reply(tool_use("mcp__pids__pid")),
        reply(text("Second pid.")),
    )
    repl = PtyRepl(workspace, env)
    try:
        repl.wait_for("> ")
        _connected(repl)
        assert repl.wait_shown("    pid").strip() == "pid"  # the tool's name, under its server
        repl.send("which pid?\r")
        repl.wait_for(TURN_END)
        repl.send("/mcp reconnect nosuch\r")
        repl.wait_for(
            '✗ There\'s no MCP server named "nosuch". Run /mcp to see configured servers.'
        )
        repl.send("/mcp disable pids\r")
        repl.wait_for('✓ Disabled "pids". (kept for this project')
        repl.send("/mcp reconnect pids\r")
        repl.wait_for('✗ "pids" is disabled. Run /mcp enable pids to bring it back.')
        repl.send("/mcp enable pids\r")
        repl.wait_for('✓ Enabled "pids". (kept for this project')
        repl.send("/mcp reconnect pids\r")
        repl.wait_for('✓ Reconnected "pids".')
        repl.send("and now?\r")
        repl.wait_for(TURN_END, 2)
    finally:
        repl.close()
    first = model_env.requests[1].tool_results()
    second = model_env.requests[3].tool_results()
    assert model_env.requests[3].tool_result_errors() == [False]
    # Another process answers: the server was really started again.
    assert first[0].strip().isdigit()
    assert second[0].strip().isdigit()
    assert first != second


@pytest.mark.timeout(120)
def test_clear_keeps_the_servers_running_and_a_disabled_one_disabled(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """`/clear` clears the conversation, as Claude Code's does: the servers stay connected (the
    same process answers), their tools are in the very next request, and a server the user
    turned off stays off."""
    env = anthropic_only(home)
    _add_pid_server(workspace, env, home)
    add = [sys.executable, "-m", "tether", "mcp", "add", "-s", "user", "spare", "--"]
    subprocess.run([*add, sys.executable, str(PID_SERVER)], cwd=workspace, env=env, check=True)
    model_env.script(
        reply(tool_use("mcp__pids__pid")),
        reply(text("First pid.")),
        reply(tool_use("mcp__pids__pid")),
        reply(text("Second pid.")),
    )
    repl = PtyRepl(workspace, env)
    try:
        repl.wait_for("> ")
        _connected(repl)
        repl.send("/mcp disable spare\r")
        repl.wait_for('✓ Disabled "spare".')
        repl.send("which pid?\r")
        repl.wait_for(TURN_END)
        repl.send("/clear\r")
        repl.wait_for(CLEARED)
        repl.send("/mcp\r")
        repl.wait_for("/mcp [reconnect", count=repl.screen.count("/mcp [reconnect") + 1)
        after = repl.screen[repl.screen.rindex(CLEARED) :]
        assert "pids                 connected  1 tool" in after
        # Off: it offers none of the tools it listed while it ran.
        assert "spare                disabled   0 tools  /mcp enable spare" in after
        repl.send("and now?\r")
        repl.wait_for(TURN_END)
    finally:
        repl.close()
    assert len(model_env.requests[2].messages()) == 1  # a new conversation
    assert "mcp__pids__pid" in model_env.requests[2].tool_names()
    assert "mcp__spare__pid" not in model_env.requests[2].tool_names()
    first = model_env.requests[1].tool_results()
    second = model_env.requests[3].tool_results()
    assert first == second  # the same server process: not started again
