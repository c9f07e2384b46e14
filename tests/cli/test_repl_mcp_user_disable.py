"""`/mcp disable` of a server that is not the repository's (the user's own, `tether mcp add -s
user`), on a real terminal: as Claude Code's `/mcp` does, the decision is kept for the project
(`disabledMcpServers`), the answer says where, the next start leaves the server off, and
`/mcp enable` takes it out again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyRepl
from tether.config.settings import tether_home
from tether.config.trust import remembered_settings
from tether.testing import FakeModelServer


@pytest.mark.timeout(120)
def test_disabling_a_user_server_is_kept_for_the_project_and_enabling_undoes_it(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    users = tether_home() / "mcp.json"
    users.parent.mkdir(parents=True, exist_ok=True)
    users.write_text(json.dumps({"mcpServers": {"usr ü": {"command": "/nonexistent/bin"}}}))
    store = remembered_settings(tether_home(), trusted_workspace)
    env = {**os.environ, "HOME": str(home)}
    repl = PtyRepl(trusted_workspace, env)
    try:
        repl.wait_for("> ")
        repl.wait_for("failed to connect")
        repl.send("/mcp disable 'usr ü'\r")
        repl.wait_until(lambda s: "wasnotrunning" in "".join(s.split()), "the answer")
        repl.send("/config\r")
        repl.wait_for("/config [KEY VALUE]")
        screen = "".join(repl.screen.split())  # however its lines wrapped
    finally:
        repl.close()
    assert '✓Disabled"usrü".(keptforthisproject:disabledMcpServersin' in screen, screen
    assert 'disabledMcpServers["usrü"]' in screen, screen
    assert json.loads(store.read_text())["disabledMcpServers"] == ["usr ü"]
    again = PtyRepl(trusted_workspace, env)
    try:
        again.wait_for("> ")
        again.send("/mcp\r")
        again.wait_for("/mcp enable usr ü")
        again.send("/mcp enable usr ü\r")
        again.wait_until(lambda s: "takenoutof" in "".join(s.split()), "the answer")
        screen = "".join(again.screen.split())
    finally:
        again.close()
    assert "failedtoconnect" not in screen.partition("/mcpenableusrü")[0], screen
    assert "(keptforthisproject:takenoutofdisabledMcpServersin" in screen, screen
    assert json.loads(store.read_text())["disabledMcpServers"] == []
