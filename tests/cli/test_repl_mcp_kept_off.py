"""Servers turned off by a file tether does not keep, on a real terminal: Claude Code's own
`/mcp disable` (the project's entry of `~/.claude.json`, read only) leaves the server off, and
`/mcp enable` of a server a settings file or that entry turns off starts it for the session
and says which file keeps it off (it is off again at the next start). The answer waits for the
connection, as Claude Code's does: it says whether the server came up."""

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
def test_enabling_a_server_another_file_turns_off_says_it_is_for_the_session(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    users = tether_home() / "mcp.json"
    users.parent.mkdir(parents=True, exist_ok=True)
    users.write_text(json.dumps({"mcpServers": {"usr": {"command": "/nonexistent/bin"}}}))
    settings = home / ".claude" / "settings.json"  # the user's own: it counts
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"disabledMcpServers": ["usr"]}))
    claude = home / ".claude.json"
    entry = {"disabledMcpServers": ["cc"]}
    claude.write_text(
        json.dumps(
            {
                "mcpServers": {"cc": {"command": "/nonexistent/bin"}},
                "projects": {str(trusted_workspace): entry},
            }
        )
    )
    before = claude.read_text()
    env = {**os.environ, "HOME": str(home)}
    repl = PtyRepl(trusted_workspace, env)
    try:
        repl.wait_for("> ")
        repl.send("/mcp\r")
        repl.wait_for("/mcp [reconnect")
        listed = "".join(repl.screen.split())
        repl.send("/mcp enable usr\r")
        repl.wait_until(lambda s: "keepsitoff" in "".join(s.split()), "the answer")
        repl.send("/mcp enable cc\r")
        repl.wait_until(lambda s: "".join(s.split()).count("keepsitoff") == 2, "the answer")
        screen = "".join(repl.screen.split())
    finally:
        repl.close()
    assert "cc(disabled)" in listed or "ccdisabled" in listed, listed
    assert "failedtoconnect" not in screen.partition("/mcpenableusr")[0], screen
    settings_said = _shown(settings, home)
    assert (
        f'✗Enabled"usr",butitisn\'tconnectedyet:commandnotfound:/nonexistent/bin(forthissessiononly:'
        f"disabledMcpServersin{settings_said}keepsitoff)"
    ) in screen, screen
    claude_said = _shown(claude, home)
    assert (
        f'✗Enabled"cc",butitisn\'tconnectedyet:commandnotfound:/nonexistent/bin(forthissessiononly:'
        f"disabledMcpServersin{claude_said}keepsitoff)"
    ) in screen, screen
    assert claude.read_text() == before  # Claude Code's file: only read
    store = remembered_settings(tether_home(), trusted_workspace)
    assert not store.exists() or "usr" not in json.loads(store.read_text()).get(
        "disabledMcpServers", []
    )


def _shown(path: Path, home: Path) -> str:
    """`path` as the REPL names it (from `~` under the home directory), spaces aside."""
    shown = f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)
    return "".join(shown.split())


@pytest.mark.timeout(120)
def test_a_projects_settings_do_not_turn_off_a_server_of_the_users(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    """As Claude Code, which reads `disabledMcpServers` only from the user's `~/.claude.json`:
    a repository's settings that list the user's server leave it on, and the REPL says why."""
    users = tether_home() / "mcp.json"
    users.parent.mkdir(parents=True, exist_ok=True)
    users.write_text(json.dumps({"mcpServers": {"usr": {"command": "/nonexistent/bin"}}}))
    settings = trusted_workspace / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"disabledMcpServers": ["usr"]}))
    repl = PtyRepl(trusted_workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("> ")
        repl.wait_for("failed to connect")  # started: it was not turned off
        screen = "".join(repl.screen.split())
    finally:
        repl.close()
    assert '"disabledMcpServers"isnotreadfromaproject\'sfiles' in screen, screen
