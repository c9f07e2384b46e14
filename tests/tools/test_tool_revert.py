"""Revert: walking back this session's writes and edits of a file."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome

RunTool = Callable[..., Awaitable[ToolOutcome]]


async def test_revert_an_edit(run_tool: RunTool, ws: Path, ctx: ToolContext) -> None:
    (ws / "a.txt").write_text("hello\n")
    await run_tool("Read", file_path="a.txt")
    await run_tool("Edit", file_path="a.txt", old_string="hello", new_string="bye")
    outcome = await run_tool("Revert", file_path="a.txt")
    assert outcome == ToolOutcome(
        "Restored a.txt to its content before the last change.",
        False,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-bye\n+hello\n",
    )
    assert (ws / "a.txt").read_text() == "hello\n"
    assert ctx.files.snapshots == {}
    # The restored content counts as read: editing on needs no new Read.
    edited = await run_tool("Edit", file_path="a.txt", old_string="hello", new_string="hi")
    assert not edited.is_error


async def test_revert_a_created_file_deletes_it(
    run_tool: RunTool, ws: Path, ctx: ToolContext
) -> None:
    await run_tool("Write", file_path="new/n.txt", content="fresh\n")
    outcome = await run_tool("Revert", file_path="new/n.txt")
    assert outcome == ToolOutcome(
        "Deleted new/n.txt: it did not exist before this session created it.",
        False,
        "--- a/new/n.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-fresh\n",
    )
    assert not (ws / "new/n.txt").exists()
    assert ctx.files.reads == {}


async def test_repeated_reverts_walk_back(run_tool: RunTool, ws: Path) -> None:
    path = ws / "a.txt"
    await run_tool("Write", file_path="a.txt", content="v1\n")
    await run_tool("Edit", file_path="a.txt", old_string="v1", new_string="v2")
    await run_tool("Write", file_path="a.txt", content="v3\n")

    first = await run_tool("Revert", file_path="a.txt")
    assert first.content == (
        "Restored a.txt to its content before the last change. "
        "2 earlier change(s) can still be reverted."
    )
    assert path.read_text() == "v2\n"
    await run_tool("Revert", file_path="a.txt")
    assert path.read_text() == "v1\n"
    await run_tool("Revert", file_path="a.txt")
    assert not path.exists()
    assert await run_tool("Revert", file_path="a.txt") == ToolOutcome(
        "Error: Nothing to revert for a.txt: no Write or Edit of it in this session is left to "
        "undo.",
        True,
    )


async def test_nothing_to_revert(run_tool: RunTool, ws: Path) -> None:
    (ws / "a.txt").write_text("untouched\n")
    assert await run_tool("Revert", file_path="a.txt") == ToolOutcome(
        "Error: Nothing to revert for a.txt: no Write or Edit of it in this session is left to "
        "undo.",
        True,
    )
    assert (ws / "a.txt").read_text() == "untouched\n"
