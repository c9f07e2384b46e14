"""The MCP control requests with the real Claude Agent SDK over the wire, answered as Claude Code
answers them: a server's status with its configuration and transport, toggling a server that
is still connecting, and no reconnecting of a disabled one; a server that dies during a call."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def test_status_toggle_and_reconnect(sdk: SdkRun) -> None:
    server = {"type": "stdio", "command": sys.executable, "args": ["-m", "mcp_server_time"]}
    async with sdk.client(mcp_servers={"clock": server}) as client:
        # Asked at once, while the server may still be connecting: it is waited for.
        await client.toggle_mcp_server("clock", False)
        status = await client.get_mcp_status()
        [entry] = status["mcpServers"]
        assert {k: v for k, v in entry.items() if k != "tools"} == {
            "name": "clock",
            "status": "disabled",
            "config": {
                "type": "stdio",
                "command": sys.executable,
                "args": ["-m", "mcp_server_time"],
            },
            "transport": "stdio",
            "scope": "dynamic",
            "source": "dynamic",
        }
        with pytest.raises(Exception, match="clock is disabled"):  # the SDK's own: Exception
            await client.reconnect_mcp_server("clock")
        await client.toggle_mcp_server("clock", True)
        await client.reconnect_mcp_server("clock")
        [entry] = (await client.get_mcp_status())["mcpServers"]
        assert entry["status"] == "connected"
        assert {t["name"] for t in entry["tools"]} >= {"get_current_time"}


async def test_a_call_that_kills_its_server_is_its_error_and_the_next_call_runs(
    sdk: SdkRun, fake_model: FakeModelServer, tmp_path: Path
) -> None:
    log = tmp_path / "raw.log"
    server = {
        "type": "stdio",
        "command": sys.executable,
        "args": [str(Path(__file__).parents[1] / "mcp" / "servers" / "raw_server.py")],
        "env": {"RAW_SERVER_LOG": str(log)},
    }
    fake_model.script(
        reply(tool_use("mcp__raw__crash")),
        reply(text("it crashed")),
        reply(tool_use("mcp__raw__pid")),
        reply(text("it answered")),
    )
    async with sdk.client(mcp_servers={"raw": server}, allowed_tools=["mcp__raw"]) as client:
        await client.query("crash it")
        [m async for m in client.receive_response()]
        [entry] = (await client.get_mcp_status())["mcpServers"]
        await client.query("and now?")
        [m async for m in client.receive_response()]
    assert entry["status"] == "connected"  # restarted for the next call
    crashed = fake_model.requests[1].messages()[-1]["content"][0]
    assert crashed["is_error"] is True
    assert "the server exited during the call" in json.dumps(crashed)
    answered = fake_model.requests[3].messages()[-1]["content"][0]
    assert answered.get("is_error") is not True, answered
    said = [line.split()[:-1] for line in log.read_text().splitlines()]
    assert said == [["start"], ["call", "crash"], ["start"], ["call", "pid"]]  # never sent twice
