"""MCP: connecting a session's servers at once against one after another, and what a call to an
MCP tool costs against the same work done by a built-in tool.

Start-up: three stdio servers (mcp-server-time, mcp-server-git and, with Node.js,
server-filesystem; otherwise a second mcp-server-time). Per call: reading one small file with
server-filesystem's `read_text_file` (or, without Node.js, mcp-server-time's
`get_current_time`, a call that does almost nothing) against tether's Read tool, both through
the same registry, median of 200 calls. Run: `.venv/bin/python bench/mcp_bench.py`.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tether.mcp.manager import McpManager
from tether.mcp.servers import McpLimits, ServerConfig, StdioTransport
from tether.protocol import ToolUseBlock
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolRegistry

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FILESYSTEM = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "mcp-server-filesystem"
RUNS = 3
CALLS = 200
LIMITS = McpLimits(startup_timeout_s=60, call_timeout_s=60)


def _stdio(name: str, command: Path, *args: str) -> ServerConfig:
    return ServerConfig(name, StdioTransport(str(command), args), "user", Path("bench"))


def _servers(repo: Path, files: Path) -> list[ServerConfig]:
    third = (
        _stdio("fs", FILESYSTEM, str(files))
        if FILESYSTEM.exists() and shutil.which("node")
        else _stdio("time2", BIN / "mcp-server-time")
    )
    return [
        _stdio("time", BIN / "mcp-server-time"),
        _stdio("git", BIN / "mcp-server-git", "--repository", str(repo)),
        third,
    ]


async def _start(servers: list[ServerConfig], together: bool) -> float:
    started = time.perf_counter()
    if together:
        managers = [McpManager(servers, LIMITS)]
        await managers[0].start()
    else:
        managers = [McpManager([s], LIMITS) for s in servers]
        for manager in managers:
            await manager.start()
    took = time.perf_counter() - started
    for manager in managers:
        assert all(s.state == "connected" for s in manager.statuses().values())
        await manager.aclose()
    return took


async def _per_call(servers: list[ServerConfig], files: Path) -> tuple[str, float, float]:
    note = files / "note.txt"
    registry = ToolRegistry(builtin_tools())
    ctx = ToolContext(workspace=files, scratch_dir=files / ".scratch")
    async with McpManager([servers[2] if servers[2].name == "fs" else servers[0]], LIMITS) as mcp:
        if servers[2].name == "fs":
            what, name, arguments = "read one file", "mcp__fs__read_text_file", {"path": str(note)}
        else:
            what, name, arguments = (
                "get the time",
                "mcp__time__get_current_time",
                {"timezone": "UTC"},
            )

        async def mcp_call() -> None:
            result = await mcp.call(name, arguments)
            assert not result.is_error, result.text

        builtin = ToolUseBlock(id="b", name="Read", input={"file_path": str(note)})

        async def builtin_call() -> None:
            outcome = await registry.run(builtin, ctx)
            assert not outcome.is_error, outcome.content

        mcp_times, builtin_times = [], []
        for _ in range(CALLS):  # interleaved: both see the same machine
            for run, times in ((mcp_call, mcp_times), (builtin_call, builtin_times)):
                started = time.perf_counter()
                await run()
                times.append(time.perf_counter() - started)
    return what, statistics.median(mcp_times), statistics.median(builtin_times)


def main() -> dict[str, float | str]:
    with tempfile.TemporaryDirectory() as tmp:
        repo, files = Path(tmp) / "repo", Path(tmp) / "files"
        files.mkdir()
        (files / "note.txt").write_text("remember the milk\n" * 20)
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        servers = _servers(repo, files)
        together, apart = [], []
        for _ in range(RUNS):
            together.append(asyncio.run(_start(servers, together=True)))
            apart.append(asyncio.run(_start(servers, together=False)))
        what, mcp_s, builtin_s = asyncio.run(_per_call(servers, files))
    return {
        "servers": ", ".join(s.name for s in servers),
        "together_s": statistics.median(together),
        "apart_s": statistics.median(apart),
        "what": what,
        "mcp_ms": mcp_s * 1000,
        "builtin_ms": builtin_s * 1000,
    }


def report(figures: dict[str, float | str]) -> None:
    together, apart = float(figures["together_s"]), float(figures["apart_s"])
    mcp_ms, builtin_ms = float(figures["mcp_ms"]), float(figures["builtin_ms"])
    print(f"MCP start-up: three stdio servers ({figures['servers']}), median of {RUNS}")
    print(f"  all at once            {together:6.2f} s")
    print(f"  one after another      {apart:6.2f} s")
    print(f"  ratio                  {apart / together:6.2f}")
    print(f"MCP call against a built-in tool ({figures['what']}; Read), median of {CALLS}")
    print(f"  MCP tool               {mcp_ms:6.2f} ms")
    print(f"  built-in Read          {builtin_ms:6.2f} ms")
    print(f"  overhead               {mcp_ms - builtin_ms:6.2f} ms ({mcp_ms / builtin_ms:.1f}x)")


if __name__ == "__main__":
    report(main())
