"""Ctrl+C during `/mcp reconnect NAME` or `/mcp enable NAME` of a server slow to start, on a
real terminal: the change is stopped at once (not after the start-up timeout), the REPL
takes the next command, and the answer says what the server is left as; `/mcp disable` of a
server still connecting says it was stopped, not that it failed."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tether.config.settings import tether_home
from tether.config.trust import remembered_settings
from tether.testing import FakeModelServer


def hanging_server(workspace: Path, name: str, *, hangs_from_start: bool) -> Path:
    """A repository server `name`, approved: it exits at once (fails) while the file `hang`
    is absent, and never answers (sleeps) once it is there, writing `hanging` first. The file
    that makes it hang."""
    hang = workspace.parent / "hang"
    hanging = workspace.parent / "hanging"
    script = f'if [ -e "{hang}" ]; then touch "{hanging}"; exec sleep 600; else exit 3; fi'
    servers = {name: {"command": "sh", "args": ["-c", script]}}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    store = remembered_settings(tether_home(), workspace)
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text(json.dumps({"enabledMcpjsonServers": [name]}))
    if hangs_from_start:
        hang.touch()
    return hang


def squeezed(repl: PtyRepl) -> str:
    return "".join(repl.screen.split())  # however its lines wrapped


@pytest.mark.timeout(120)
@pytest.mark.parametrize("verb", ["reconnect", "enable"])
def test_ctrl_c_stops_a_slow_mcp_change_and_the_repl_goes_on(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path, verb: str
) -> None:
    hang = hanging_server(trusted_workspace, "slow", hangs_from_start=False)
    env = {**os.environ, "HOME": str(home)}  # the start-up timeout is tether's 30 s default
    repl = PtyRepl(trusted_workspace, env)
    try:
        repl.wait_for("> ")
        # Its first start has ended (a late one would find `hang` there, and hang itself).
        repl.wait_for("failed to connect")
        repl.send("/mcp\r")
        repl.wait_for("SERVER]")  # the list's last line
        repl.wait_reading("SERVER]")
        if verb == "enable":
            repl.send("/mcp disable slow\r")
            repl.wait_for("kept for this project")
            repl.wait_reading("kept for this project")
        hang.touch()
        repl.send(f"/mcp {verb} slow\r")
        started = hang.with_name("hanging")
        while not started.exists():  # the command runs (Ctrl+C is a signal now): it waits
            time.sleep(0.05)
        repl.send("\x03")
        repl.wait_until(lambda s: "stopped(Ctrl+C)" in "".join(s.split()), "the stop")
        repl.send("/mcp\r")
        repl.wait_until(lambda s: "/mcp[reconnect|" in "".join(s.split()), "the list")
        screen = squeezed(repl)
    finally:
        repl.close()
    said = f"✗/mcp{verb}slow:stopped(Ctrl+C);slowisfailed"
    assert said in screen, screen
    assert "slowtotryagain." in screen.split(said, 1)[1], screen
    assert "/mcpreconnectslowtotryagain." in screen, screen  # it is enabled: reconnect it
    assert "noanswerwithin" not in screen, screen
    # The session has it enabled (failed); so has the decision kept for the project, which
    # the next session and /config read (before, an enable stopped left it "disabled" there).
    kept = json.loads(remembered_settings(tether_home(), trusted_workspace).read_text())
    assert kept.get("enabledMcpjsonServers") == ["slow"], kept
    assert "slow" not in kept.get("disabledMcpjsonServers", []), kept


@pytest.mark.timeout(120)
def test_disabling_a_server_still_connecting_says_it_was_stopped(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    hanging_server(trusted_workspace, "slow", hangs_from_start=True)
    repl = PtyRepl(trusted_workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("> ")
        repl.send("/mcp disable slow\r")
        repl.wait_until(lambda s: "wasstopped" in "".join(s.split()), "the answer")
        repl.send("/mcp\r")
        repl.wait_for("/mcp enable slow")
        screen = squeezed(repl)
    finally:
        repl.close()
    assert '✓Disabled"slow".(keptforthisproject' in screen, screen
    assert "Itwasstillconnecting,andwasstopped." in screen, screen
    assert "failedtoconnect" not in screen, screen
