"""MCP in the REPL: a repository's server is used only once the user says yes (remembered), a
server's prompt runs as /mcp__server__prompt, and Ctrl+C stops an MCP call like any other."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from tests.cli.repl_terminal import CTRL_D, Terminal
from tether.cli.setup import RunOptions
from tether.config.settings import tether_home
from tether.config.trust import remembered_settings
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.mcp_http_server import McpHttpServer

# The user's own project: its servers may start (tests/core/test_trust_over_wire.py has the
# untrusted ones).
pytestmark = pytest.mark.usefixtures("trusted_workspace")


@pytest.fixture
def demo() -> Iterator[McpHttpServer]:
    with McpHttpServer() as server:
        yield server


def _project_server(workspace: Path, url: str) -> None:
    (workspace / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"demo": {"type": "http", "url": url}}})
    )


def _local_settings(workspace: Path) -> dict[str, object]:
    """The user's remembered answers for the workspace (kept in the user's own store)."""
    path = remembered_settings(tether_home(), workspace)
    return json.loads(path.read_text()) if path.exists() else {}


async def test_a_repository_server_is_asked_about_once(
    model_env: FakeModelServer, workspace: Path, demo: McpHttpServer
) -> None:
    _project_server(workspace, demo.url)
    model_env.script(reply(text("first")), reply(text("second")), reply(text("third")))
    terminal = Terminal()
    # Asked at start-up, before the prompt: Enter uses the checked server.
    assert await terminal.run(workspace, "\rhello\r" + CTRL_D) == 0
    assert "A new MCP server in this project's .mcp.json" in terminal.output
    assert "using demo" in terminal.output
    assert "mcp__demo__add" in model_env.requests[0].tool_names()
    assert _local_settings(workspace) == {"enabledMcpjsonServers": ["demo"]}

    again = Terminal()  # decided: not asked again
    assert await again.run(workspace, "hi\r" + CTRL_D) == 0
    assert "new MCP server" not in again.output
    assert "mcp__demo__add" in model_env.requests[1].tool_names()


async def test_no_keeps_the_server_out(
    model_env: FakeModelServer, workspace: Path, demo: McpHttpServer
) -> None:
    _project_server(workspace, demo.url)
    model_env.script(reply(text("ok")))
    terminal = Terminal()
    assert await terminal.run(workspace, " \rhello\r" + CTRL_D) == 0  # unchecked, Enter
    assert not any(n.startswith("mcp__") for n in model_env.requests[0].tool_names())
    assert _local_settings(workspace) == {"disabledMcpjsonServers": ["demo"]}


async def test_a_server_prompt_runs_as_a_command(
    model_env: FakeModelServer, workspace: Path, demo: McpHttpServer
) -> None:
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "mcp.local.json").write_text(
        json.dumps({"mcpServers": {"demo": {"type": "http", "url": demo.url}}})
    )
    model_env.script(reply(text("Looks fine.")))
    terminal = Terminal()
    assert await terminal.run(workspace, "/mcp__demo__review x = 1\r/help\r" + CTRL_D) == 0
    assert "Looks fine." in terminal.output
    assert "MCP server prompts" in terminal.output  # /help lists them once connected
    assert "  /mcp__demo__review  MCP prompt\n" in terminal.output  # with its description
    sent = model_env.requests[0].last_user_text()
    assert "x = 1" in sent


async def test_ctrl_c_stops_an_mcp_call(
    model_env: FakeModelServer, workspace: Path, demo: McpHttpServer
) -> None:
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "mcp.local.json").write_text(
        json.dumps({"mcpServers": {"demo": {"type": "http", "url": demo.url}}})
    )
    model_env.script(reply(tool_use("mcp__demo__sleep", seconds=60)), reply(text("Stopped.")))
    terminal = Terminal()
    options = RunOptions(cwd=workspace, permission_mode="bypassPermissions")
    with create_pipe_input() as pipe:
        pipe.send_text("wait\r")
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=options))
        await terminal.wait_for("● mcp__demo__sleep")
        pipe.send_text("\x03")  # Ctrl+C, read as a key during the turn
        await terminal.wait_for("Interrupted")
        pipe.send_text("go on\r")
        await terminal.wait_for("Stopped.")
        pipe.send_text(CTRL_D)
        assert await repl == 0
    assert "Interrupted by the user" in model_env.requests[1].tool_results()[0]
