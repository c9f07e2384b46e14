"""Write: creation, read-before-overwrite, atomic replacement, and where it may write."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome

RunTool = Callable[..., Awaitable[ToolOutcome]]


async def test_creates_a_file_and_its_directories(
    run_tool: RunTool, ws: Path, ctx: ToolContext
) -> None:
    outcome = await run_tool("Write", file_path="pkg/sub/new.py", content="a = 1\nb = 2\n")
    assert outcome == ToolOutcome(
        "Created pkg/sub/new.py (2 lines)",
        False,
        "--- /dev/null\n+++ b/pkg/sub/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n",
    )
    assert (ws / "pkg/sub/new.py").read_text() == "a = 1\nb = 2\n"
    assert ctx.files.snapshots.contents() == {ws / "pkg/sub/new.py": [None]}


async def test_new_file_mode_follows_the_umask(run_tool: RunTool, ws: Path) -> None:
    previous = os.umask(0o027)
    try:
        await run_tool("Write", file_path="new.txt", content="x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((ws / "new.txt").stat().st_mode) == 0o640


@pytest.mark.parametrize("tool", ["Write", "Edit"])
async def test_a_rewrite_drops_setuid_and_setgid_as_the_kernel_would(
    run_tool: RunTool, ws: Path, tool: str
) -> None:
    """A write by anyone but root clears these bits; root (tether run as root, in containers
    and CI) keeps them, so a rewritten setuid-root program would give root to whoever runs it."""
    program = ws / "tool"
    program.write_text("echo old\n")
    program.chmod(0o6755)
    await run_tool("Read", file_path="tool")
    change = (
        {"content": "echo new\n"} if tool == "Write" else {"old_string": "old", "new_string": "new"}
    )
    outcome = await run_tool(tool, file_path="tool", **change)
    assert not outcome.is_error, outcome
    assert (program.read_text(), stat.S_IMODE(program.stat().st_mode)) == ("echo new\n", 0o755)


async def test_existing_file_must_be_read_first(run_tool: RunTool, ws: Path) -> None:
    (ws / "a.txt").write_text("old\n")
    outcome = await run_tool("Write", file_path="a.txt", content="new\n")
    assert outcome == ToolOutcome(
        "Error: a.txt has not been read in this session; Read it before changing it.", True
    )
    assert (ws / "a.txt").read_text() == "old\n"


async def test_overwrites_a_read_file_keeping_its_mode(
    run_tool: RunTool, ws: Path, ctx: ToolContext
) -> None:
    script = ws / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o750)
    await run_tool("Read", file_path="run.sh")
    outcome = await run_tool("Write", file_path="run.sh", content="echo new\necho more")
    assert outcome == ToolOutcome(
        "Wrote 2 lines to run.sh",
        False,
        "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1,2 @@\n-echo old\n+echo new\n+echo more\n"
        "\\ No newline at end of file\n",
    )
    assert script.read_text() == "echo new\necho more"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert sorted(p.name for p in ws.iterdir()) == ["run.sh"]  # no temporary file left
    assert ctx.files.snapshots.contents() == {script: [b"echo old\n"]}


async def test_file_changed_since_read_is_refused(run_tool: RunTool, ws: Path) -> None:
    (ws / "a.txt").write_text("old\n")
    await run_tool("Read", file_path="a.txt")
    (ws / "a.txt").write_text("changed by someone else\n")
    outcome = await run_tool("Write", file_path="a.txt", content="new\n")
    assert outcome == ToolOutcome(
        "Error: a.txt changed on disk since it was last read (another program or session "
        "wrote it); Read it again before changing it.",
        True,
    )


async def test_a_write_counts_as_a_read(run_tool: RunTool, ws: Path) -> None:
    await run_tool("Write", file_path="a.txt", content="one\n")
    outcome = await run_tool("Write", file_path="a.txt", content="two\n")
    assert outcome.content == "Wrote 1 lines to a.txt"
    assert (ws / "a.txt").read_text() == "two\n"


async def test_outside_the_workspace_is_refused(
    run_tool: RunTool, tmp_path: Path, ctx: ToolContext
) -> None:
    target = tmp_path / "outside.txt"
    outcome = await run_tool("Write", file_path=str(target), content="x")
    assert outcome == ToolOutcome(
        f"Error: {target} is outside the workspace ({ctx.workspace}); writing there is refused.",
        True,
    )
    assert not target.exists()


async def test_symlink_leading_outside_is_refused(
    run_tool: RunTool, ws: Path, tmp_path: Path, ctx: ToolContext
) -> None:
    target = tmp_path / "secret.txt"
    target.write_text("keep\n")
    (ws / "link.txt").symlink_to(target)
    outcome = await run_tool("Write", file_path="link.txt", content="x")
    assert outcome == ToolOutcome(
        f"Error: {target} is outside the workspace ({ctx.workspace}); writing there is refused.",
        True,
    )
    assert target.read_text() == "keep\n"


async def test_a_directory_is_refused(run_tool: RunTool, ws: Path) -> None:
    (ws / "src").mkdir()
    assert await run_tool("Write", file_path="src", content="x") == ToolOutcome(
        "Error: src is a directory; give the path of a file.", True
    )


async def test_parent_that_is_a_file(run_tool: RunTool, ws: Path) -> None:
    (ws / "a.txt").write_text("")
    assert await run_tool("Write", file_path="a.txt/b.txt", content="x") == ToolOutcome(
        "Error: Could not write a.txt/b.txt: a parent of the path is not a directory. "
        "The file was not changed.",
        True,
    )


async def test_disk_full_leaves_the_file_and_history_unchanged(
    run_tool: RunTool, ws: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "a.txt").write_text("old\n")
    await run_tool("Read", file_path="a.txt")

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", no_space)
    outcome = await run_tool("Write", file_path="a.txt", content="new\n")
    assert outcome == ToolOutcome(
        "Error: Could not write a.txt: no space left on device. The file was not changed.", True
    )
    assert (ws / "a.txt").read_text() == "old\n"
    assert sorted(p.name for p in ws.iterdir()) == ["a.txt"]
    assert ctx.files.snapshots.contents() == {}


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
async def test_permission_denied(run_tool: RunTool, ws: Path) -> None:
    locked = ws / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        outcome = await run_tool("Write", file_path="locked/a.txt", content="x")
    finally:
        locked.chmod(0o755)
    assert outcome == ToolOutcome(
        "Error: Could not write locked/a.txt: permission denied. The file was not changed.", True
    )


async def test_a_fifo_is_refused(run_tool: RunTool, ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    assert await run_tool("Write", file_path="pipe", content="x") == ToolOutcome(
        "Error: pipe is not a regular file; only regular files can be changed.", True
    )
