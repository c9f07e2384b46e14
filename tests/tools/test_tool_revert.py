"""Revert: walking back this session's writes and edits of a file."""

from __future__ import annotations

import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path

from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome
from tether.tools.snapshots import SnapshotStore

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
    assert ctx.files.snapshots.contents() == {}
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


async def test_snapshots_live_on_disk_not_in_memory(
    run_tool: RunTool, ws: Path, ctx: ToolContext
) -> None:
    # 10 small edits of a 2 MB file: 20 MB of snapshots, none of it held by Python.
    lines = [f"line {n:07d} " + "x" * 990 + "\n" for n in range(2_000)]
    (ws / "big.txt").write_text("".join(lines))
    await run_tool("Read", file_path="big.txt")
    tracemalloc.start()
    try:
        baseline, _ = tracemalloc.get_traced_memory()
        for n in range(10):
            edited = await run_tool(
                "Edit", file_path="big.txt", old_string=f"line {n:07d}", new_string=f"LINE {n}"
            )
            assert not edited.is_error, edited
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held - baseline < 4_000_000
    assert ctx.files.snapshots.count(ws / "big.txt") == 10
    assert (await run_tool("Revert", file_path="big.txt")).is_error is False
    assert "LINE 9" not in (ws / "big.txt").read_text()


async def test_past_the_budget_the_oldest_snapshots_go_and_the_model_is_told(
    run_tool: RunTool, ws: Path, ctx: ToolContext
) -> None:
    ctx.files.snapshots = SnapshotStore(ctx.scratch_dir, budget_bytes=2_500)
    await run_tool("Write", file_path="a.txt", content="0" * 1000)
    for n in range(1, 5):
        await run_tool("Write", file_path="a.txt", content=str(n) * 1000)
    # Before the writes: nothing, then "0"*1000 ... "3"*1000; 2,500 bytes hold two of those.
    assert ctx.files.snapshots.contents() == {ws / "a.txt": [b"2" * 1000, b"3" * 1000]}
    budget_note = (
        "The snapshots of its 3 earliest change(s) were dropped to keep this session's "
        "snapshots under 2.4 KiB, so those changes can no longer be reverted."
    )
    first = await run_tool("Revert", file_path="a.txt")
    assert first.content == (
        "Restored a.txt to its content before the last change. 1 earlier change(s) can still "
        f"be reverted. {budget_note}"
    )
    await run_tool("Revert", file_path="a.txt")
    assert (ws / "a.txt").read_text() == "2" * 1000
    assert await run_tool("Revert", file_path="a.txt") == ToolOutcome(
        "Error: Nothing to revert for a.txt: no Write or Edit of it in this session is left to "
        f"undo. {budget_note}",
        True,
    )
