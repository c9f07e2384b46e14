"""`/mcp disable` of a repository's server that failed to connect (the usual reason to turn
one off), on a real terminal: it is disabled at once, the answer says so, where the decision
is kept and that the server was not running; /mcp lists it disabled, and so does the next
start."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tether.config.settings import tether_home
from tether.config.trust import remembered_settings
from tether.testing import FakeModelServer


def failing_server(workspace: Path, name: str) -> Path:
    """A repository server `name` that cannot start, approved for `workspace`; the file the
    project's decisions are kept in."""
    servers = {name: {"command": "/nonexistent/bin"}}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    store = remembered_settings(tether_home(), workspace)
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text(json.dumps({"enabledMcpjsonServers": [name]}))
    return store


@pytest.mark.timeout(120)
def test_disabling_a_server_that_failed_says_it_is_disabled_and_lists_it_so(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    store = failing_server(trusted_workspace, "bad")
    env = {**os.environ, "HOME": str(home)}
    repl = PtyRepl(trusted_workspace, env)
    try:
        repl.wait_for("> ")
        repl.send("/mcp\r")
        repl.wait_for("failed")
        repl.send("/mcp disable bad\r")
        repl.wait_until(lambda s: "wasnotrunning" in "".join(s.split()), "the answer")
        repl.send("/mcp\r")
        repl.wait_for("/mcp enable bad")
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    assert '✓Disabled"bad".(keptforthisproject:disabledMcpjsonServersin' in screen, screen
    assert "ithadfailedtoconnect" in screen, screen
    assert "didnotdisable" not in screen, screen
    assert json.loads(store.read_text())["disabledMcpjsonServers"] == ["bad"]
    again = PtyRepl(trusted_workspace, env)
    try:
        again.wait_for("> ")
        again.send("/mcp\r")
        again.wait_for("/mcp enable bad")
    finally:
        again.close()


@pytest.mark.timeout(120)
def test_a_quoted_server_name_is_found_and_disabling_twice_says_already_disabled(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    store = failing_server(trusted_workspace, "broken srv")
    repl = PtyRepl(trusted_workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("> ")
        repl.wait_for("failed to connect")  # else it is still connecting, and stopped so
        repl.send("/mcp disable 'broken srv'\r")
        repl.wait_until(lambda s: "wasnotrunning" in "".join(s.split()), "the answer")
        repl.send('/mcp disable "broken srv"\r')
        repl.wait_until(lambda s: "alreadydisabled" in "".join(s.split()), "the second answer")
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    assert '✓Disabled"brokensrv".(keptforthisproject' in screen, screen
    assert '✓"brokensrv"isalreadydisabled.' in screen, screen
    assert "NoMCPserver" not in screen, screen
    assert json.loads(store.read_text())["disabledMcpjsonServers"] == ["broken srv"]


@pytest.mark.timeout(120)
def test_config_lists_the_mcp_decisions_as_they_are_after_mcp_disable(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    """`/mcp disable` is in force at once: `/config` then shows the decision kept, not the
    lists the session read at its start."""
    failing_server(trusted_workspace, "bad")
    repl = PtyRepl(trusted_workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("> ")
        repl.wait_for("failed to connect")
        repl.send("/config\r")
        repl.wait_for("/config [KEY VALUE]")
        repl.send("/mcp disable bad\r")
        repl.wait_for("kept for this project")
        repl.send("/config\r")
        repl.wait_for("/config [KEY VALUE]", count=2)
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    before, _, after = screen.partition("keptforthisproject")
    assert 'enabledMcpjsonServers["bad"]' in before, screen
    assert 'disabledMcpjsonServers["bad"]' in after, screen
    assert "enabledMcpjsonServers[]" in after, screen
