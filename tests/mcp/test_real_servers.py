"""The MCP client runtime against real servers: `mcp-server-time` and `mcp-server-git` from
PyPI, `@modelcontextprotocol/server-filesystem` and `server-everything` from npm (skipped when
Node.js or the packages are missing)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tether.mcp.manager import McpManager, McpResult, ServerStatus

from .conftest import FAST, VENV_BIN, node_server, stdio


async def test_time_server_tells_the_time_and_refuses_a_bad_argument() -> None:
    async with McpManager([stdio("time", VENV_BIN / "mcp-server-time")], FAST) as manager:
        assert manager.statuses() == {"time": ServerStatus("connected", tools=2)}
        assert [(t.exposed, t.read_only) for t in manager.tools()] == [
            ("mcp__time__get_current_time", True),
            ("mcp__time__convert_time", True),
        ]
        now = await manager.call("mcp__time__get_current_time", {"timezone": "UTC"})
        assert not now.is_error
        assert str(datetime.now(UTC).year) in now.text
        bad = await manager.call("mcp__time__get_current_time", {"timezone": "Mars/Olympus"})
        assert bad.is_error
        assert "Mars/Olympus" in bad.text


async def test_git_server_shows_status_and_log(git_repo: Path) -> None:
    git = stdio("git", VENV_BIN / "mcp-server-git", "--repository", git_repo)
    async with McpManager([git], FAST) as manager:
        assert manager.statuses()["git"].state == "connected"
        names = {t.name for t in manager.tools()}
        assert {"git_status", "git_log", "git_diff_unstaged", "git_commit"} <= names
        assert len(names) >= 10
        status = await manager.call("mcp__git__git_status", {"repo_path": str(git_repo)})
        assert not status.is_error
        assert "README.md" in status.text
        log = await manager.call("mcp__git__git_log", {"repo_path": str(git_repo)})
        assert not log.is_error
        assert "First commit" in log.text


async def test_filesystem_server_reads_a_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    command = node_server("mcp-server-filesystem")
    async with McpManager([stdio("fs", command, tmp_path)], FAST) as manager:
        assert manager.statuses()["fs"].state == "connected"
        assert manager.statuses()["fs"].tools >= 10
        assert "mcp__fs__read_text_file" in {t.exposed for t in manager.tools()}
        path = str(tmp_path / "notes.txt")
        result = await manager.call("mcp__fs__read_text_file", {"path": path})
        assert result == McpResult("remember the milk\n")
        outside = await manager.call("mcp__fs__read_text_file", {"path": "/etc/hostname"})
        assert outside.is_error


async def test_everything_server_echoes_and_its_image_is_passed_on() -> None:
    command = node_server("mcp-server-everything")
    async with McpManager([stdio("everything", command, "stdio")], FAST) as manager:
        assert manager.statuses()["everything"].state == "connected"
        assert {"echo", "get-sum", "get-tiny-image"} <= {t.name for t in manager.tools()}
        echo = await manager.call("mcp__everything__echo", {"message": "hi"})
        assert echo == McpResult("Echo: hi")
        total = await manager.call("mcp__everything__get-sum", {"a": 2, "b": 3})
        assert not total.is_error
        assert "5" in total.text
        image = await manager.call("mcp__everything__get-tiny-image", {})
        assert not image.is_error
        assert [i.model_dump()["source"]["media_type"] for i in image.images] == ["image/png"]
        assert manager.prompts()


async def test_the_filesystem_server_gets_the_workspace_as_its_root(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("remember the eggs\n")
    command = node_server("mcp-server-filesystem")
    # No directory on its command line: it works in the roots the client declares.
    async with McpManager([stdio("fs", command)], FAST, roots=[workspace]) as manager:
        assert manager.statuses()["fs"].state == "connected"
        # It asks for the roots once initialised, beside the listing: a few round trips on,
        # it has them (each call is answered after the messages before it).
        for _ in range(100):
            allowed = await manager.call("mcp__fs__list_allowed_directories", {})
            if str(workspace) in allowed.text:
                break
        assert str(workspace) in allowed.text
        path = str(workspace / "notes.txt")
        assert await manager.call("mcp__fs__read_text_file", {"path": path}) == McpResult(
            "remember the eggs\n"
        )


async def test_the_filesystem_server_follows_the_roots_when_they_change(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    command = node_server("mcp-server-filesystem")

    async def allowed_becomes(manager: McpManager, directory: Path) -> str:
        # The server asks for the roots when told they changed: a few round trips on, it has
        # them (each call is answered after the messages before it).
        for _ in range(100):
            allowed = await manager.call("mcp__fs__list_allowed_directories", {})
            if str(directory) in allowed.text:
                break
        return allowed.text

    async with McpManager([stdio("fs", command)], FAST, roots=[first]) as manager:
        assert str(first) in await allowed_becomes(manager, first)
        await manager.set_roots([second])
        now = await allowed_becomes(manager, second)
    assert str(second) in now
    assert str(first) not in now
