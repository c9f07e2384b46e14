"""Helpers for the MCP client tests: server configurations, the real servers' commands, our
own HTTP server, and the process table (to see that servers are started and stopped)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.mcp.servers import HttpTransport, McpLimits, ServerConfig, StdioTransport
from tether.testing.mcp_http_server import McpHttpServer

HERE = Path(__file__).parent
SCRIPTS = HERE / "servers"
VENV_BIN = Path(sys.executable).parent
REPO = HERE.parent.parent
NODE_BIN = REPO / ".venv" / "node" / "node_modules" / ".bin"

FAST = McpLimits(startup_timeout_s=120.0, call_timeout_s=20.0)
"""Room for a slow machine (a Python server importing the MCP SDK took 6 to 9 s to start on a
loaded one: 20 s was not room enough); the tests that need a timeout to run out set their own."""


def stdio(name: str, command: str | Path, *args: str | Path, **env: str) -> ServerConfig:
    transport = StdioTransport(str(command), tuple(str(a) for a in args), env=env)
    return ServerConfig(name, transport, "user", Path("test"))


def script(name: str, file: str, *args: str | Path, **env: str) -> ServerConfig:
    """One of the servers under tests/mcp/servers, run by this Python."""
    return stdio(name, sys.executable, SCRIPTS / file, *args, **env)


def http(
    name: str, url: str, kind: str = "http", headers: dict[str, str] | None = None
) -> ServerConfig:
    transport = HttpTransport(url, headers or {}, kind="sse" if kind == "sse" else "http")
    return ServerConfig(name, transport, "user", Path("test"))


def node_server(package: str) -> Path:
    """The npm server's command, or a skip saying what is missing."""
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    command = NODE_BIN / package
    if not command.exists():
        pytest.skip(
            f"{package} is not installed: npm install --prefix {REPO / '.venv' / 'node'} "
            "@modelcontextprotocol/server-filesystem @modelcontextprotocol/server-everything"
        )
    return command


def child_pids() -> dict[int, str]:
    """This process's live children, with their command lines (zombies are not counted)."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("this test reads the process table in /proc")
    children: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == os.getpid() and state != "Z":
            children[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace")
    return children


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def wait_until_gone(pids: set[int], timeout_s: float = 10.0) -> set[int]:
    """The pids still alive after waiting up to `timeout_s` for them to go."""
    step_s = 0.05
    for _ in range(int(timeout_s / step_s)):
        if not any(alive(pid) for pid in pids):
            break
        await asyncio.sleep(step_s)
    return {pid for pid in pids if alive(pid)}


@pytest.fixture(scope="module")
def http_server() -> Iterator[McpHttpServer]:
    """Our streamable-HTTP demo server, shared by a module's tests."""
    with McpHttpServer() as server:
        yield server


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    (repo / "README.md").write_text("hello\n")
    for command in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "README.md"],
        ["git", "commit", "-q", "-m", "First commit"],
    ):
        subprocess.run(command, cwd=repo, env=env, check=True)
    (repo / "README.md").write_text("hello again\n")
    return repo
