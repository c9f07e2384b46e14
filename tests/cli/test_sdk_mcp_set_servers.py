"""`mcp_set_servers` (the SDK's `setMcpServers` / `set_mcp_servers`) while the session runs, as
Claude Code answers it: servers named anew are connected (stdio, HTTP, SSE, the client's own),
one named with another configuration is replaced, the ones it named before and leaves out are
closed, and the tools offered on the next request change accordingly. The real Python SDK over
the wire; the fake model server sees the tool lists."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeSDKClient, create_sdk_mcp_server, tool

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.mcp_http_server import McpHttpServer

SERVERS = Path(__file__).parents[1] / "mcp" / "servers"


def stdio(script: str, *args: str) -> dict[str, Any]:
    return {"type": "stdio", "command": sys.executable, "args": [str(SERVERS / script), *args]}


async def set_servers(client: ClaudeSDKClient, servers: dict[str, Any]) -> dict[str, Any]:
    """The request as the SDKs send it (this SDK's release has no method for it yet)."""
    query = client._query  # pyright: ignore[reportPrivateUsage]
    assert query is not None
    request = {"subtype": "mcp_set_servers", "servers": servers}
    return await query._send_control_request(request)  # pyright: ignore[reportPrivateUsage]


async def turn(client: ClaudeSDKClient, prompt: str) -> None:
    await client.query(prompt)
    async for _ in client.receive_response():
        pass


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def http_server() -> Iterator[McpHttpServer]:
    with McpHttpServer() as server:
        yield server


async def test_a_stdio_server_is_added_replaced_and_removed_while_the_session_runs(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(text("none yet")),
        reply(tool_use("mcp__p__pid")),
        reply(text("one")),
        reply(tool_use("mcp__p__pid")),
        reply(text("two")),
        reply(text("none again")),
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await turn(client, "before")
        said = await set_servers(client, {"p": stdio("pid_server.py")})
        assert said == {"added": ["p"], "removed": [], "errors": {}}
        await turn(client, "first")
        # The same configuration again: left connected, not reported.
        assert await set_servers(client, {"p": stdio("pid_server.py")}) == {
            "added": [],
            "removed": [],
            "errors": {},
        }
        # Another configuration under the same name: replaced (a new process).
        said = await set_servers(client, {"p": stdio("pid_server.py", "again")})
        assert said == {"added": ["p"], "removed": [], "errors": {}}
        await turn(client, "second")
        status = await client.get_mcp_status()
        assert [(s["name"], s["status"]) for s in status["mcpServers"]] == [("p", "connected")]
        assert await set_servers(client, {}) == {"added": [], "removed": ["p"], "errors": {}}
        await turn(client, "after")
        status = await client.get_mcp_status()
        assert status["mcpServers"] == []
    offered = ["mcp__p__pid" in r.tool_names() for r in fake_model.requests]
    assert offered == [False, True, True, True, True, False]
    first, second = (
        int(r.tool_results()[0]) for r in (fake_model.requests[2], fake_model.requests[4])
    )
    assert first != second  # replaced: another process answered
    assert not alive(first)
    assert not alive(second)
    sdk.assert_lines_parse()


async def test_http_and_sse_servers_are_connected_at_run_time(
    sdk: SdkRun, fake_model: FakeModelServer, http_server: McpHttpServer
) -> None:
    fake_model.script(reply(text("one")), reply(text("two")))
    with McpHttpServer(kind="sse") as old:
        async with sdk.client() as client:
            await turn(client, "before")
            said = await set_servers(
                client,
                {
                    "web": {"type": "http", "url": http_server.url},
                    "old": {"type": "sse", "url": old.url},
                },
            )
            assert sorted(said["added"]) == ["old", "web"]
            assert said["errors"] == {}
            await turn(client, "after")
    before, after = (set(r.tool_names()) for r in fake_model.requests)
    assert {"mcp__web__add", "mcp__old__add"} <= after - before


async def test_entries_that_cannot_be_used_or_connect_are_errors_and_the_rest_apply(
    sdk: SdkRun, fake_model: FakeModelServer, tmp_path: Path
) -> None:
    fake_model.script(reply(text("one")))
    said: dict[str, Any] = {}
    # `p` is certain to start, however slowly: importing the MCP SDK took 6 to 9 s on a loaded
    # machine, and a 20 s startup bound failed it there. Two minutes bounds a broken run only.
    async with sdk.client(env={"MCP_TIMEOUT": "120000"}) as client:
        said = await set_servers(
            client,
            {
                "p": stdio("pid_server.py"),
                "typo": {"type": "stdoi", "command": "x"},
                "nowhere": {"type": "http", "url": "ftp://example.invalid/mcp"},
                "dies": stdio("exits_at_once.py"),
            },
        )
        await turn(client, "go")
    assert said["added"] == ["p"], said
    errors = said["errors"]
    assert set(errors) == {"typo", "nowhere", "dies"}
    assert "unknown type 'stdoi'" in errors["typo"]
    assert "url must start with http:// or https://" in errors["nowhere"]
    assert errors["dies"]
    assert "mcp__p__pid" in fake_model.requests[0].tool_names()


async def test_the_clients_own_server_is_removed_and_added_again(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    @tool("ping", "Pings", {})
    async def ping(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "PONG"}]}

    own = create_sdk_mcp_server("own", tools=[ping])
    fake_model.script(reply(text("one")), reply(text("two")), reply(text("three")))
    async with sdk.client(mcp_servers={"own": own}) as client:
        await turn(client, "with")
        assert await set_servers(client, {}) == {"added": [], "removed": ["own"], "errors": {}}
        await turn(client, "without")
        said = await set_servers(client, {"own": {"type": "sdk", "name": "own"}})
        assert said == {"added": ["own"], "removed": [], "errors": {}}
        await turn(client, "with again")
    offered = ["mcp__own__ping" in r.tool_names() for r in fake_model.requests]
    assert offered == [True, False, True]


async def test_servers_of_the_options_stay_unless_named(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one")))
    configured = {"kept": stdio("pid_server.py")}
    async with sdk.client(mcp_servers=configured) as client:
        said = await set_servers(client, {"p": stdio("pid_server.py")})
        assert said == {"added": ["p"], "removed": [], "errors": {}}
        await turn(client, "go")
    assert {"mcp__kept__pid", "mcp__p__pid"} <= set(fake_model.requests[0].tool_names())


async def test_a_request_without_servers_is_refused(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    async with sdk.client() as client:
        query = client._query  # pyright: ignore[reportPrivateUsage]
        assert query is not None
        with pytest.raises(Exception, match="needs a `servers` object"):
            await query._send_control_request({"subtype": "mcp_set_servers"})  # pyright: ignore[reportPrivateUsage]
