"""Servers that fail: at start (missing command, instant exit, hang, refused connection,
failing listing), with a bad tool schema, with malformed or error results, and by dying in the
middle of a session. One server failing never takes the others down, and no process is left."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from tether.mcp.manager import McpManager, McpResult, ServerStatus
from tether.mcp.servers import McpLimits, ServerConfig, StdioTransport
from tether.testing.mcp_http_server import McpHttpServer

from .conftest import FAST, child_pids, http, script, stdio, wait_until_gone


async def started(*servers: ServerConfig, limits: McpLimits = FAST) -> McpManager:
    manager = McpManager(servers, limits)
    async with asyncio.timeout(30):
        await manager.start()
    return manager


async def test_a_missing_command_is_named() -> None:
    manager = await started(stdio("missing", "/no/such/mcp-server"))
    await manager.aclose()
    error = "command not found: /no/such/mcp-server"
    assert manager.statuses() == {"missing": ServerStatus("failed", error=error)}
    assert manager.problems() == [f'MCP server "missing" failed to start: {error}']


async def test_a_missing_working_directory_is_named(tmp_path: Path) -> None:
    transport = StdioTransport(sys.executable, ("-c", "pass"), cwd=tmp_path / "gone")
    manager = await started(ServerConfig("lost", transport, "user", Path("test")))
    await manager.aclose()
    assert manager.statuses()["lost"] == ServerStatus(
        "failed", error=f"working directory not found: {tmp_path / 'gone'}"
    )


async def test_a_server_that_exits_at_once_is_reported_with_its_stderr(
    capfd: pytest.CaptureFixture[str],
) -> None:
    manager = await started(script("broken", "exits_at_once.py"))
    await manager.aclose()
    assert "fatal" not in capfd.readouterr().err
    assert manager.statuses()["broken"] == ServerStatus(
        "failed",
        error="the server closed the connection; "
        "stderr: fatal: cannot open the database at /nowhere/db.sqlite",
    )


async def test_a_server_that_never_answers_fails_after_the_startup_timeout() -> None:
    limits = McpLimits(startup_timeout_s=2)
    before = set(child_pids())
    manager = await started(script("stuck", "hangs_at_initialise.py"), limits=limits)
    assert manager.statuses() == {"stuck": ServerStatus("failed", error="no answer within 2 s")}
    await manager.aclose()
    assert await wait_until_gone(set(child_pids()) - before) == set()


async def test_a_refused_http_connection_is_reported() -> None:
    manager = await started(http("nobody", "http://127.0.0.1:9/mcp"))
    await manager.aclose()
    status = manager.statuses()["nobody"]
    assert status.state == "failed"
    assert status.error == (
        "cannot reach http://127.0.0.1:9/mcp: ConnectError: All connection attempts failed"
    )


async def test_a_failing_tool_listing_fails_the_server() -> None:
    manager = await started(script("locked", "raw_server.py", "--fail-listing"))
    await manager.aclose()
    assert manager.statuses()["locked"] == ServerStatus(
        "failed",
        error="the server answered with an error: the tool database is locked (code -32603)",
    )


async def test_a_tool_with_an_invalid_schema_is_left_out_and_the_others_work() -> None:
    async with McpManager([script("raw", "raw_server.py")], FAST) as manager:
        assert manager.problems() == [
            'MCP server "raw": tool "bad_schema" is left out: its input schema is not '
            'a JSON object with "type": "object"'
        ]
        tools = {t.name: t for t in manager.tools()}
        assert sorted(tools) == [
            "crash",
            "garbage",
            "no_schema",
            "ok",
            "pid",
            "rpc_error",
            "where",
        ]
        assert tools["no_schema"].input_schema == {"type": "object", "properties": {}}
        assert tools["ok"].read_only
        assert await manager.call("mcp__raw__ok", {}) == McpResult("ok")
        assert await manager.call("mcp__raw__no_schema", {}) == McpResult("ok")


async def test_every_page_of_tools_is_listed_even_with_an_invalid_tool_on_one() -> None:
    async with McpManager([script("raw", "raw_server.py", "--paged")], FAST) as manager:
        assert [t.name for t in manager.tools()] == [
            "ok",
            "no_schema",
            "garbage",
            "rpc_error",
            "crash",
            "pid",
            "where",
        ]
        assert [p for p in manager.problems() if "bad_schema" in p] == manager.problems()
        assert await manager.call("mcp__raw__no_schema", {}) == McpResult("ok")
        assert not (await manager.call("mcp__raw__pid", {})).is_error


async def test_malformed_results_and_json_rpc_errors_are_errors_naming_server_and_tool() -> None:
    async with McpManager([script("raw", "raw_server.py")], FAST) as manager:
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
        assert await manager.call("mcp__raw__ok", {}) == McpResult("ok")


async def test_one_server_failing_never_takes_the_others_down() -> None:
    manager = await started(
        script("good", "raw_server.py"),
        stdio("missing", "/no/such/mcp-server"),
        script("broken", "exits_at_once.py"),
    )
    try:
        assert {name: s.state for name, s in manager.statuses().items()} == {
            "good": "connected",
            "missing": "failed",
            "broken": "failed",
        }
        assert {t.server for t in manager.tools()} == {"good"}
        assert await manager.call("mcp__good__ok", {}) == McpResult("ok")
    finally:
        await manager.aclose()


async def test_a_killed_server_is_restarted_on_its_next_call() -> None:
    async with McpManager([script("victim", "pid_server.py")], FAST) as manager:
        first = await manager.call("mcp__victim__pid", {})
        pid = int(first.text)
        os.kill(pid, signal.SIGKILL)
        assert await wait_until_gone({pid}) == set()
        second = await manager.call("mcp__victim__pid", {})
        assert not second.is_error
        assert int(second.text) != pid
        assert manager.statuses()["victim"].state == "connected"


async def test_a_call_that_kills_its_server_is_its_error_never_sent_again(
    tmp_path: Path,
) -> None:
    # The tool may have done its work before the server died: sent again, it would do it twice.
    log = tmp_path / "raw.log"
    async with McpManager([script("raw", "raw_server.py", RAW_SERVER_LOG=str(log))], FAST) as m:
        assert await m.call("mcp__raw__crash", {}) == McpResult(
            'MCP server "raw" failed on tool "crash": the server exited during the call; '
            "stderr: crashing on purpose",
            is_error=True,
        )
        assert m.statuses()["raw"].state == "connected"  # restarted for the next call
        assert await m.call("mcp__raw__ok", {}) == McpResult("ok")
        assert await m.call("mcp__raw__crash", {}) == McpResult(
            'MCP server "raw" failed on tool "crash": the server exited during the call; '
            "stderr: crashing on purpose",
            is_error=True,
        )
        assert await m.call("mcp__raw__ok", {}) == McpResult("ok")
    said = [line.split()[:-1] for line in log.read_text().splitlines()]
    started, crash, ok = ["start"], ["call", "crash"], ["call", "ok"]
    assert said == [started, crash, started, ok, crash, started, ok]


async def test_after_aclose_no_server_process_is_left() -> None:
    # Two managers: the servers that must connect get the generous limit (an SDK server takes
    # about a second to import under load, and the 3 s this test once gave every server was
    # not always enough on a loaded machine), the one that never answers a short one.
    before = set(child_pids())
    healthy = McpManager(
        [
            script("one", "raw_server.py"),
            script("two", "raw_server.py"),
            script("three", "pid_server.py"),
        ],
        FAST,
    )
    stuck = McpManager([script("stuck", "hangs_at_initialise.py")], McpLimits(startup_timeout_s=1))
    async with asyncio.timeout(60):
        await asyncio.gather(healthy.start(), stuck.start())
    started_pids = set(child_pids()) - before
    assert len(started_pids) >= 3
    await asyncio.gather(healthy.aclose(), stuck.aclose())
    assert await wait_until_gone(started_pids) == set()
    assert {name: s.state for name, s in (healthy.statuses() | stuck.statuses()).items()} == {
        "one": "stopped",
        "two": "stopped",
        "three": "stopped",
        "stuck": "failed",
    }


async def test_an_http_server_that_went_away_is_down_until_reconnected() -> None:
    server = McpHttpServer()
    server.start()
    async with McpManager([http("web", server.url)], FAST) as manager:
        assert await manager.call("mcp__web__add", {"a": 1, "b": 2}) == McpResult("3")
        server.stop()
        down = McpResult(
            f'MCP server "web" is down: cannot reach {server.url}: '
            "ConnectError: All connection attempts failed",
            is_error=True,
        )
        assert await manager.call("mcp__web__add", {"a": 1, "b": 2}) == down
        with McpHttpServer(port=server.port):
            assert await manager.call("mcp__web__add", {"a": 1, "b": 2}) == down
            assert await manager.reconnect("web") == ServerStatus("connected", tools=5)
            assert await manager.call("mcp__web__add", {"a": 1, "b": 2}) == McpResult("3")


async def test_calls_that_find_the_server_dead_together_restart_it_once() -> None:
    async with McpManager([script("victim", "pid_server.py")], FAST) as manager:
        pid = int((await manager.call("mcp__victim__pid", {})).text)
        os.kill(pid, signal.SIGKILL)
        assert await wait_until_gone({pid}) == set()
        results = await asyncio.gather(*(manager.call("mcp__victim__pid", {}) for _ in range(3)))
        assert len({r.text for r in results}) == 1
        assert not results[0].is_error
        assert int(results[0].text) != pid


async def test_a_start_cancelled_half_way_leaves_no_process() -> None:
    before = set(child_pids())
    manager = McpManager(
        [script("one", "hangs_at_initialise.py"), script("two", "pid_server.py")], FAST
    )
    starting = asyncio.create_task(manager.start())
    await asyncio.sleep(0.3)
    starting.cancel()
    done, _ = await asyncio.wait({starting}, timeout=5)
    assert done == {starting}
    await manager.aclose()
    assert await wait_until_gone(set(child_pids()) - before) == set()
