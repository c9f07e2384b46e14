"""The MCP control requests with the real Claude Agent SDK over the wire, answered as Claude Code
answers them: a server's status with its configuration and transport, toggling a server that
is still connecting, and no reconnecting of a disabled one."""

from __future__ import annotations

import sys

import pytest

from tests.cli.sdk_harness import SdkRun


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
