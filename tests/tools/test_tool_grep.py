"""Grep: ripgrep's three output modes, filters and failures."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tether.tools.registry import ToolOutcome

RunTool = Callable[..., Awaitable[ToolOutcome]]


@pytest.fixture
def tree(ws: Path) -> Path:
    files = {
        "old.py": ("def alpha():\n    return 1\n", 1_000_000),
        "src/new.py": ("import os\n\n\ndef beta():\n    return ALPHA\n", 3_000_000),
        "src/app.js": ("function alpha() {\n  return 2;\n}\n", 2_000_000),
        "README.md": ("Alpha and beta.\n", 4_000_000),
    }
    for name, (text, mtime) in files.items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (mtime, mtime))
    return ws


async def test_files_with_matches_newest_first(run_tool: RunTool, tree: Path) -> None:
    assert await run_tool("Grep", pattern="alpha") == ToolOutcome("src/app.js\nold.py", False)


async def test_case_insensitive(run_tool: RunTool, tree: Path) -> None:
    assert await run_tool("Grep", pattern="alpha", **{"-i": True}) == ToolOutcome(
        "README.md\nsrc/new.py\nsrc/app.js\nold.py", False
    )


async def test_content_with_line_numbers(run_tool: RunTool, tree: Path) -> None:
    outcome = await run_tool("Grep", pattern="return", output_mode="content", path="src/new.py")
    assert outcome == ToolOutcome("src/new.py:5:    return ALPHA", False)
    outcome = await run_tool(
        "Grep", pattern="return", output_mode="content", path="src/new.py", **{"-n": False}
    )
    assert outcome == ToolOutcome("src/new.py:    return ALPHA", False)


async def test_content_with_context(run_tool: RunTool, tree: Path) -> None:
    outcome = await run_tool(
        "Grep", pattern="beta", output_mode="content", path="src", **{"-B": 1, "-A": 1}
    )
    assert outcome == ToolOutcome(
        "src/new.py-3-\nsrc/new.py:4:def beta():\nsrc/new.py-5-    return ALPHA", False
    )
    outcome = await run_tool("Grep", pattern="def beta", output_mode="content", **{"-C": 3})
    assert outcome == ToolOutcome(
        "src/new.py-1-import os\nsrc/new.py-2-\nsrc/new.py-3-\nsrc/new.py:4:def beta():\n"
        "src/new.py-5-    return ALPHA",
        False,
    )


async def test_count(run_tool: RunTool, tree: Path) -> None:
    outcome = await run_tool("Grep", pattern="a", output_mode="count", glob="*.py")
    assert outcome == ToolOutcome("old.py:1\nsrc/new.py:1\n(2 matching lines in 2 files)", False)


async def test_glob_and_type_filters(run_tool: RunTool, tree: Path) -> None:
    assert await run_tool("Grep", pattern="alpha", glob="*.js") == ToolOutcome("src/app.js", False)
    assert await run_tool("Grep", pattern="return", type="py") == ToolOutcome(
        "src/new.py\nold.py", False
    )


async def test_multiline(run_tool: RunTool, tree: Path) -> None:
    assert await run_tool("Grep", pattern=r"alpha\(\) \{.*return 2", multiline=True) == (
        ToolOutcome("src/app.js", False)
    )
    assert await run_tool("Grep", pattern=r"alpha\(\) \{.*return 2") == ToolOutcome(
        "No matches found for 'alpha\\\\(\\\\) \\\\{.*return 2' in the workspace.", False
    )


async def test_head_limit(run_tool: RunTool, tree: Path) -> None:
    outcome = await run_tool("Grep", pattern="a", head_limit=2, **{"-i": True})
    assert outcome == ToolOutcome(
        "README.md\nsrc/new.py\n(showing the first 2 of 4 entries: head_limit)", False
    )


async def test_no_matches(run_tool: RunTool, tree: Path) -> None:
    assert await run_tool("Grep", pattern="zebra", path="src") == ToolOutcome(
        "No matches found for 'zebra' in src.", False
    )


async def test_invalid_regex(run_tool: RunTool, tree: Path) -> None:
    outcome = await run_tool("Grep", pattern="(unclosed")
    assert outcome.is_error
    assert outcome.content.startswith("Error: ripgrep failed: rg: regex parse error:")
    assert "unclosed group" in outcome.content


async def test_unknown_type(run_tool: RunTool, tree: Path) -> None:
    outcome = await run_tool("Grep", pattern="a", type="nosuchtype")
    assert outcome == ToolOutcome(
        "Error: ripgrep failed: rg: unrecognized file type: nosuchtype", True
    )


async def test_missing_path(run_tool: RunTool, tree: Path) -> None:
    assert await run_tool("Grep", pattern="a", path="nope") == ToolOutcome(
        "Error: Path does not exist: nope.", True
    )


async def test_gitignore_is_respected(run_tool: RunTool, tree: Path) -> None:
    (tree / ".git").mkdir()
    (tree / ".git" / "alpha").write_text("alpha\n")
    (tree / ".gitignore").write_text("src/\n")
    (tree / ".env").write_text("ALPHA=1\n")
    os.utime(tree / ".env", (5_000_000, 5_000_000))
    assert await run_tool("Grep", pattern="(?i)alpha") == ToolOutcome(
        ".env\nREADME.md\nold.py", False
    )


async def test_long_output_is_capped(run_tool: RunTool, ws: Path) -> None:
    (ws / "many.txt").write_text("match this line\n" * 5000)
    outcome = await run_tool("Grep", pattern="match", output_mode="content")
    *lines, note = outcome.content.split("\n")
    assert len(outcome.content) < 30_200
    assert lines == [f"many.txt:{n}:match this line" for n in range(1, len(lines) + 1)]
    assert note == (
        f"(output cut at 30,000 characters, {5000 - len(lines)} more lines left out; use "
        "head_limit, path, glob or a narrower pattern)"
    )


async def test_workspace_as_path_gives_plain_relative_paths(run_tool: RunTool, tree: Path) -> None:
    for path in (".", str(tree)):
        assert await run_tool("Grep", pattern="alpha", path=path) == ToolOutcome(
            "src/app.js\nold.py", False
        )


async def test_outside_the_workspace_paths_are_absolute(
    run_tool: RunTool, tree: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.txt").write_text("alpha\n")
    assert await run_tool("Grep", pattern="alpha", path=str(outside)) == ToolOutcome(
        f"{outside}/x.txt", False
    )
