"""`tether mcp serve` over real stdio: the SDK's own client starts `python -m tether mcp serve`
as a subprocess and calls tether's built-in tools through it; assertions read the results, the
files on disk and the process table."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as McpTool

from tether.cli.mcp_serve import main
from tether.tools.builtin import builtin_tools

Connect = Callable[..., AbstractAsyncContextManager[Client]]
OFFERED = [
    "Bash",
    "BashOutput",
    "KillShell",
    "Read",
    "Write",
    "Edit",
    "NotebookEdit",
    "Glob",
    "Grep",
    "WebFetch",
    "Revert",
]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.fixture
def connect(tmp_path: Path, ws: Path) -> Connect:
    """`async with connect("--permission-mode", "plan") as client`: a server on `ws`, with its
    own HOME and TETHER_HOME; `errlog` receives its stderr."""
    env = {"HOME": str(tmp_path / "home"), "TETHER_HOME": str(tmp_path / "tether-home")}

    @asynccontextmanager
    async def open_client(*args: str, errlog: TextIO | None = None) -> AsyncIterator[Client]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "tether", "mcp", "serve", "--cwd", str(ws), *args],
            env=env,
        )
        server = params if errlog is None else stdio_client(params, errlog=errlog)
        async with Client(server) as client:
            yield client

    return open_client


def outcome(result: CallToolResult) -> tuple[bool, str]:
    """Whether the call failed, and its text (tether's tools answer with one text block)."""
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    assert len(texts) == len(result.content), result
    return result.is_error, "".join(texts)


def processes_mentioning(token: str) -> dict[int, str]:
    """Live processes whose command line contains `token`, by pid (zombies run nothing)."""
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if token in cmdline and state not in ("Z", "X"):
            found[int(entry.name)] = cmdline
    return found


async def wait_for(condition: Callable[[], bool]) -> None:
    """Poll until `condition()` holds; the limit only stops a broken test from hanging."""
    with anyio.fail_after(10):
        while True:
            if condition():
                return
            await anyio.sleep(0.02)


async def test_lists_the_builtin_tools_with_the_schemas_the_model_gets(connect: Connect) -> None:
    expected = [
        McpTool(
            name=t.name,
            description=t.description,
            input_schema=t.spec().input_schema,
            annotations=ToolAnnotations(read_only_hint=t.read_only),
        )
        for t in builtin_tools()
        if t.name in OFFERED
    ]
    async with connect() as client:
        listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == OFFERED
    assert listed == expected


async def test_reads_a_file_in_the_workspace(connect: Connect, ws: Path) -> None:
    (ws / "notes.txt").write_text("hello\nworld\n")
    async with connect() as client:
        result = await client.call_tool("Read", {"file_path": "notes.txt"})
    assert outcome(result) == (False, "     1\thello\n     2\tworld")


async def test_write_edit_and_revert_share_one_context(connect: Connect, ws: Path) -> None:
    target = ws / "a.txt"
    async with connect("--permission-mode", "acceptEdits") as client:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("Write", {"file_path": "a.txt", "content": "one\n"}),
            ("Edit", {"file_path": "a.txt", "old_string": "one", "new_string": "two"}),
        ]
        results = [outcome(await client.call_tool(name, args)) for name, args in calls]
        assert target.read_text() == "two\n"
        results.append(outcome(await client.call_tool("Revert", {"file_path": "a.txt"})))
        assert target.read_text() == "one\n"
        results.append(outcome(await client.call_tool("Revert", {"file_path": "a.txt"})))
    assert not target.exists()
    assert results == [
        (False, "Created a.txt (1 lines)"),
        (False, "Edited a.txt: replaced 1 occurrence (first at line 1)."),
        (
            False,
            "Restored a.txt to its content before the last change. "
            "1 earlier change(s) can still be reverted.",
        ),
        (False, "Deleted a.txt: it did not exist before this session created it."),
    ]


async def test_a_deny_rule_from_the_settings_is_an_error_with_its_reason(
    connect: Connect, ws: Path
) -> None:
    (ws / ".tether").mkdir()
    (ws / ".tether" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(rm *)"]}})
    )
    (ws / "keep.txt").write_text("kept\n")
    async with connect("--permission-mode", "bypassPermissions") as client:
        result = await client.call_tool("Bash", {"command": "rm -f keep.txt"})
    assert outcome(result) == (
        True,
        "Permission denied (rule Bash(rm *)): `rm -f keep.txt` is denied by Bash(rm *)",
    )
    assert (ws / "keep.txt").exists()


async def test_a_call_that_would_be_asked_needs_approval(connect: Connect, ws: Path) -> None:
    async with connect() as client:
        result = await client.call_tool("Bash", {"command": "touch made.txt"})
    assert outcome(result) == (
        True,
        "This call needs approval (no rule allows `touch made.txt`), and an MCP server has "
        'nobody to ask. To allow it, add an allow rule such as "Bash(touch made.txt)" to '
        "permissions.allow in .tether/settings.json or pass it with --allowedTools, or start "
        "the server with --permission-mode acceptEdits (edits in the workspace) or "
        "bypassPermissions.",
    )
    assert not (ws / "made.txt").exists()


@pytest.mark.parametrize(
    "args",
    [("--permission-mode", "bypassPermissions"), ("--allowedTools", "Bash(touch *)")],
    ids=["bypassPermissions", "allowedTools"],
)
async def test_the_mode_or_an_allow_rule_lets_it_run(
    connect: Connect, ws: Path, args: tuple[str, ...]
) -> None:
    async with connect(*args) as client:
        result = await client.call_tool("Bash", {"command": "touch made.txt && echo made"})
    assert outcome(result) == (False, "made")
    assert (ws / "made.txt").exists()


async def test_a_bare_denied_tool_is_not_offered(connect: Connect, ws: Path) -> None:
    async with connect(
        "--disallowedTools", "Bash,Write", "--permission-mode", "bypassPermissions"
    ) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("Bash", {"command": "touch made.txt"})
    assert names == [
        "BashOutput",
        "KillShell",
        "Read",
        "Edit",
        "NotebookEdit",
        "Glob",
        "Grep",
        "WebFetch",
        "Revert",
    ]
    assert outcome(result) == (
        True,
        "Error: No such tool: 'Bash'. Available tools: "
        "BashOutput, KillShell, Read, Edit, NotebookEdit, Glob, Grep, WebFetch, Revert.",
    )
    assert not (ws / "made.txt").exists()


async def test_exits_when_the_client_closes_and_stops_background_commands(
    connect: Connect, ws: Path, tmp_path: Path
) -> None:
    marker = f"sleep 3{os.getpid()}.1"  # a command line no other test runs (xdist workers too)
    log_path = tmp_path / "server-stderr.txt"
    with log_path.open("w") as errlog:
        async with connect("--allowedTools", "Bash(sleep *)", errlog=errlog) as client:
            started = await client.call_tool("Bash", {"command": marker, "run_in_background": True})
            assert outcome(started)[1].startswith("Started background command bash_1"), started
            assert processes_mentioning(marker)
    # Had it not exited on its own when stdin closed, the client would have sent SIGTERM.
    assert log_path.read_text().splitlines()[-1] == "tether mcp serve: stopped (stdin closed)"
    assert processes_mentioning(marker) == {}
    assert processes_mentioning(str(ws)) == {}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
async def test_a_signal_stops_calls_in_flight_and_background_commands(
    connect: Connect, ws: Path, tmp_path: Path, signum: signal.Signals
) -> None:
    # Command lines of this process's own: the other parameter may run in another worker.
    background, foreground = f"sleep 4{os.getpid()}.1", f"sleep 4{os.getpid()}.2"
    log_path = tmp_path / "server-stderr.txt"
    with log_path.open("w") as errlog:
        async with connect("--allowedTools", "Bash(sleep *)", errlog=errlog) as client:
            await client.call_tool("Bash", {"command": background, "run_in_background": True})
            (server_pid,) = [
                pid for pid, line in processes_mentioning(str(ws)).items() if "mcp serve" in line
            ]
            failures: list[str] = []

            async def call_in_flight() -> None:
                with pytest.raises(MCPError) as raised:
                    await client.call_tool("Bash", {"command": foreground})
                failures.append(str(raised.value))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(call_in_flight)
                await wait_for(lambda: bool(processes_mentioning(foreground)))
                os.kill(server_pid, signum)
    assert failures == ["Connection closed"]
    assert log_path.read_text().splitlines()[-1] == f"tether mcp serve: stopped ({signum.name})"
    assert processes_mentioning(background) == {}
    assert processes_mentioning(foreground) == {}


def test_a_missing_workspace_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--cwd", str(tmp_path / "missing")]) == 2
    assert capsys.readouterr() == (
        "",
        f"tether: workspace is not a directory: {tmp_path / 'missing'}\n",
    )
