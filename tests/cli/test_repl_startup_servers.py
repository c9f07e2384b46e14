"""The repository's new MCP servers are asked about at start-up, on a real terminal: before
the message prompt exists (so nobody is typing a message into it), one list of them, nothing
kept before Enter or Esc, and the answer says where it is kept and how to change it. A yes/no
question takes Enter, so the letters of a message typed on into it answer nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.cli.pty_terminal import PtyRepl
from tether.cli.yes_no import read_yes_no
from tether.config.settings import tether_home
from tether.config.trust import remembered_settings
from tether.testing import FakeModelServer, reply, text


def _servers(workspace: Path) -> None:
    servers = {name: {"command": "true", "args": [name]} for name in ("time", "git")}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


@pytest.mark.timeout(90)
def test_the_list_comes_before_the_prompt_and_keeps_nothing_before_esc(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    _servers(trusted_workspace)
    store = remembered_settings(tether_home(), trusted_workspace)
    model_env.script(reply(text("answered")))
    repl = PtyRepl(trusted_workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("2 new MCP servers in this project's .mcp.json")
        repl.wait_for("Esc reject all")
        assert not any(line.startswith("> ") for line in repl.lines)  # no prompt yet
        repl.send("unit no yes")  # a message typed on into it: letters answer nothing
        repl.send("\x1b")  # Esc: reject all
        repl.wait_for("/mcp enable NAME")
        assert "using none of them" in repl.screen
        assert json.loads(store.read_text()) == {"disabledMcpjsonServers": ["git", "time"]}
        repl.wait_for("> ")
        repl.send("hi\r")
        repl.wait_for("answered")
        assert not any(n.startswith("mcp__") for n in model_env.requests[0].tool_names())
        repl.send("/mcp\r")  # rejected: disabled (not started), not pending
        repl.wait_for("/mcp enable time")
        repl.send("/status\r")
        repl.wait_for("time (disabled)")
        repl.send("/doctor\r")
        repl.wait_for("time: disabled: /mcp enable time starts it")
        assert "pending" not in repl.screen, repl.screen
        assert "⚠ git" not in repl.screen, repl.screen
    finally:
        repl.close()


@pytest.mark.timeout(90)
def test_nothing_is_kept_before_the_list_is_confirmed(
    model_env: FakeModelServer, trusted_workspace: Path, home: Path
) -> None:
    _servers(trusted_workspace)
    store = remembered_settings(tether_home(), trusted_workspace)
    repl = PtyRepl(trusted_workspace, {**os.environ, "HOME": str(home)})
    try:
        repl.wait_for("Esc reject all")
        repl.send("yes n")  # the space unchecks the first, as in Claude Code; nothing kept
        repl.wait_for("[ ] git")
        repl.send("\x1b[B")  # Down
        assert not store.exists()
        repl.send("\r")
        repl.wait_for("using time; rejected git")
        assert json.loads(store.read_text()) == {
            "enabledMcpjsonServers": ["time"],
            "disabledMcpjsonServers": ["git"],
        }
    finally:
        repl.close()


async def test_a_yes_or_no_takes_enter_and_other_lines_are_kept() -> None:
    kept: list[str] = []
    with create_pipe_input() as pipe:
        pipe.send_text("add a unit test\rn\r")  # "n" of "unit": no answer without Enter
        assert await read_yes_no(pipe, DummyOutput(), kept) is False
    assert kept == ["add a unit test"]
    with create_pipe_input() as pipe:
        pipe.send_text("y\x1b")  # Esc: not now, whatever the line held
        assert await read_yes_no(pipe, DummyOutput(), kept) is None
