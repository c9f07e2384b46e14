"""The client's own servers (`"type": "sdk"`), spoken to by tether's own JSON-RPC client over
the channel the front end carries, behave as the MCP SDK's client makes a server behave: here
the hand-written server of `servers/raw_server.py` (a server from before 2026: the
`initialize` handshake, `server/discover` refused) is put behind such a channel, and gives the
same listing, results and failures as over stdio (`test_failures`). The newer protocol is
spoken with the Agent SDK's real in-process servers (tests/cli)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tether.mcp.manager import McpManager, McpResult, ServerStatus
from tether.mcp.servers import ChannelClosed, ClientTransport, McpLimits, ServerConfig

from .conftest import FAST, SCRIPTS


class Bridge:
    """What a front end does with `mcp_message`: each message to the server, its answer back."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lock = asyncio.Lock()
        self.sent: list[dict[str, Any]] = []

    async def exchange(self, server: str, message: dict[str, Any]) -> dict[str, Any] | None:
        assert server == "raw"
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        async with self.lock:
            self.sent.append(message)
            stdin.write(json.dumps(message).encode() + b"\n")
            await stdin.drain()
            if "id" not in message:
                return None
            line = await stdout.readline()
            if not line:
                raise ChannelClosed("the server is gone")
            return json.loads(line)


@pytest.fixture
async def bridge() -> AsyncIterator[Bridge]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPTS / "raw_server.py"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    yield Bridge(process)
    if process.returncode is None:
        process.kill()
    await process.wait()


async def test_a_server_behind_the_channel_lists_calls_and_fails_as_over_stdio(
    bridge: Bridge,
) -> None:
    config = ServerConfig("raw", ClientTransport(bridge.exchange), "dynamic", Path("test"))
    async with McpManager([config], FAST) as manager:
        assert manager.statuses() == {"raw": ServerStatus("connected", 7)}
        assert manager.problems() == [
            'MCP server "raw": tool "bad_schema" is left out: its input schema is not '
            'a JSON object with "type": "object"'
        ]
        [ok] = [t for t in manager.tools() if t.name == "ok"]
        assert ok.read_only
        assert await manager.call("mcp__raw__ok", {}) == McpResult("ok")
        assert await manager.call("mcp__raw__garbage", {}) == McpResult(
            'MCP server "raw" failed on tool "garbage": the server\'s answer is malformed: '
            "content: Input should be a valid list",
            is_error=True,
        )
        assert await manager.call("mcp__raw__rpc_error", {}) == McpResult(
            'MCP server "raw" failed on tool "rpc_error": the server answered with an error: '
            "the tool exploded (code -32603)",
            is_error=True,
        )
    # The newer protocol was asked for first; refused, the handshake followed, then requests
    # without the newer protocol's stamp.
    methods = [m["method"] for m in bridge.sent]
    assert methods[:3] == ["server/discover", "initialize", "notifications/initialized"]
    initialize = bridge.sent[1]["params"]
    assert initialize["protocolVersion"] == "2025-11-25"
    assert initialize["clientInfo"]["name"] == "tether"
    call = next(m for m in bridge.sent if m["method"] == "tools/call")
    assert call["params"] == {"name": "ok", "arguments": {}}


async def test_a_channel_that_closes_fails_the_server_with_the_reason() -> None:
    async def closed(server: str, message: dict[str, Any]) -> dict[str, Any] | None:
        raise ChannelClosed("the client has gone away")

    config = ServerConfig("gone", ClientTransport(closed), "dynamic", Path("test"))
    async with McpManager([config], FAST) as manager:
        status = manager.statuses()["gone"]
    assert status.state == "failed"
    assert (
        status.error == "the server answered with an error: the client has gone away (code -32603)"
    )


async def test_a_call_given_up_on_is_cancelled_at_the_server() -> None:
    """A server that never answers a call: the call times out, the model reads that, and the
    server is told the request was abandoned (as the SDK's client tells it)."""
    cancelled: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    told = asyncio.Event()

    async def never_answers_calls(server: str, message: dict[str, Any]) -> dict[str, Any] | None:
        method = message.get("method")
        answer: dict[str, Any] = {"jsonrpc": "2.0", "id": message.get("id")}
        if method == "server/discover":
            versions = ["2026-07-28"]
            answer["result"] = {"capabilities": {"tools": {}}, "supportedVersions": versions}
        elif method == "tools/list":
            answer["result"] = {"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            calls.append(message["params"])
            await asyncio.Event().wait()  # never
        elif method == "notifications/cancelled":
            cancelled.append(message["params"])
            told.set()
            return None
        return answer

    config = ServerConfig("hang", ClientTransport(never_answers_calls), "dynamic", Path("test"))
    limits = McpLimits(startup_timeout_s=FAST.startup_timeout_s, call_timeout_s=0.1)
    async with McpManager([config], limits) as manager:
        result = await manager.call("mcp__hang__slow", {})
        assert result == McpResult(
            'MCP tool "slow" of server "hang" did not answer within 0.1 s', is_error=True
        )
        async with asyncio.timeout(20):
            await told.wait()
    [params] = cancelled
    assert params["requestId"] == 3  # discover, list, then the call
    # The newer protocol agreed on, each request carries its version and the client's name.
    [call] = calls
    assert call["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert call["_meta"]["io.modelcontextprotocol/clientInfo"]["name"] == "tether"
