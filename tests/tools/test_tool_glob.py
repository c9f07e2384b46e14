"""Glob: ripgrep's file listing, newest first, capped."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from tether.tools.registry import ToolOutcome

RunTool = Callable[..., Awaitable[ToolOutcome]]


def make(ws: Path, name: str, mtime: int = 1_700_000_000) -> None:
    path = ws / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x\n")
    os.utime(path, (mtime, mtime))


async def test_newest_first(run_tool: RunTool, ws: Path) -> None:
    make(ws, "old.py", 1_000_000)
    make(ws, "src/new.py", 3_000_000)
    make(ws, "src/deep/mid.py", 2_000_000)
    make(ws, "notes.txt", 4_000_000)
    assert await run_tool("Glob", pattern="**/*.py") == ToolOutcome(
        "src/new.py\nsrc/deep/mid.py\nold.py", False
    )


async def test_pattern_with_a_directory(run_tool: RunTool, ws: Path) -> None:
    make(ws, "src/a.py")
    make(ws, "src/deep/b.py")
    make(ws, "other/src/c.py")
    assert await run_tool("Glob", pattern="src/*.py") == ToolOutcome("src/a.py", False)
    assert await run_tool("Glob", pattern="./src/*.py") == ToolOutcome("src/a.py", False)


async def test_search_below_a_path(run_tool: RunTool, ws: Path) -> None:
    make(ws, "a.py", 1)
    make(ws, "pkg/b.py", 2)
    make(ws, "pkg/sub/c.py", 3)
    outcome = await run_tool("Glob", pattern="*.py", path="pkg")
    assert outcome == ToolOutcome("pkg/sub/c.py\npkg/b.py", False)


async def test_absolute_pattern(run_tool: RunTool, ws: Path) -> None:
    make(ws, "pkg/b.py", 2)
    make(ws, "pkg/sub/c.py", 3)
    outcome = await run_tool("Glob", pattern=f"{ws}/pkg/**/*.py")
    assert outcome == ToolOutcome("pkg/sub/c.py\npkg/b.py", False)


async def test_capped_at_100_with_a_note(run_tool: RunTool, ws: Path) -> None:
    for n in range(120):
        make(ws, f"f{n:03}.txt", 1_000_000 + n)
    outcome = await run_tool("Glob", pattern="*.txt")
    newest = [f"f{n:03}.txt" for n in range(119, 19, -1)]
    assert outcome == ToolOutcome(
        "\n".join(newest) + "\n(showing the 100 most recently modified of 120 matches; "
        "narrow the pattern or path to see the others)",
        False,
    )


async def test_gitignore_hidden_files_and_git_dir(run_tool: RunTool, ws: Path) -> None:
    make(ws, ".git/config")
    make(ws, ".gitignore")
    (ws / ".gitignore").write_text("build/\n")
    make(ws, "build/out.txt")
    make(ws, ".hidden/keep.txt")
    make(ws, "src/keep.txt")
    outcome = await run_tool("Glob", pattern="**/*")
    assert sorted(outcome.content.split("\n")) == [".gitignore", ".hidden/keep.txt", "src/keep.txt"]


async def test_no_matches(run_tool: RunTool, ws: Path) -> None:
    make(ws, "a.py")
    assert await run_tool("Glob", pattern="*.rs") == ToolOutcome(
        "No files match '*.rs' in the workspace.", False
    )


async def test_path_must_be_a_directory(run_tool: RunTool, ws: Path) -> None:
    make(ws, "a.py")
    assert await run_tool("Glob", pattern="*", path="a.py") == ToolOutcome(
        "Error: a.py is not a directory; give a directory as path.", True
    )
    assert await run_tool("Glob", pattern="*", path="nope") == ToolOutcome(
        "Error: Directory does not exist: nope.", True
    )


async def test_braces_and_classes(run_tool: RunTool, ws: Path) -> None:
    for n, name in enumerate(["a.ts", "b.tsx", "c.js", "lib/d.ts", "x1.md", "xa.md"]):
        make(ws, name, 1_000 + n)
    assert await run_tool("Glob", pattern="**/*.{ts,tsx}") == ToolOutcome(
        "lib/d.ts\nb.tsx\na.ts", False
    )
    assert await run_tool("Glob", pattern="x[0-9].md") == ToolOutcome("x1.md", False)
    assert await run_tool("Glob", pattern="{lib,src}/*") == ToolOutcome("lib/d.ts", False)


async def test_unbalanced_brace_is_literal(run_tool: RunTool, ws: Path) -> None:
    make(ws, "src/{a")
    assert await run_tool("Glob", pattern="src/{a") == ToolOutcome("src/{a", False)
