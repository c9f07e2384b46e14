"""Edit: exact, unique replacement in a file the model has read."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome

RunTool = Callable[..., Awaitable[ToolOutcome]]

SOURCE = "def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n    return x\n"


@pytest.fixture
async def source(run_tool: RunTool, ws: Path) -> Path:
    path = ws / "m.py"
    path.write_text(SOURCE)
    await run_tool("Read", file_path="m.py")
    return path


async def test_replaces_a_unique_string(run_tool: RunTool, source: Path, ctx: ToolContext) -> None:
    outcome = await run_tool("Edit", file_path="m.py", old_string="def g", new_string="def h")
    assert outcome == ToolOutcome(
        "Edited m.py: replaced 1 occurrence (first at line 6).",
        False,
        "--- a/m.py\n+++ b/m.py\n@@ -3,6 +3,6 @@\n     return x\n \n \n-def g():\n+def h():\n"
        "     x = 1\n     return x\n",
    )
    assert source.read_text() == SOURCE.replace("def g", "def h")
    assert ctx.files.snapshots.contents() == {source: [SOURCE.encode()]}


async def test_ambiguous_string_is_refused(run_tool: RunTool, source: Path) -> None:
    outcome = await run_tool("Edit", file_path="m.py", old_string="x = 1", new_string="x = 2")
    assert outcome == ToolOutcome(
        "Error: old_string occurs 2 times in m.py. Include more surrounding context to make it "
        "unique, or set replace_all to replace every occurrence.",
        True,
    )
    assert source.read_text() == SOURCE


async def test_replace_all(run_tool: RunTool, source: Path) -> None:
    outcome = await run_tool(
        "Edit", file_path="m.py", old_string="x", new_string="y", replace_all=True
    )
    assert outcome.content == "Edited m.py: replaced 4 occurrences (first at line 2)."
    assert source.read_text() == SOURCE.replace("x", "y")


async def test_successive_edits_need_no_new_read(run_tool: RunTool, source: Path) -> None:
    await run_tool("Edit", file_path="m.py", old_string="def f", new_string="def first")
    outcome = await run_tool("Edit", file_path="m.py", old_string="def g", new_string="def second")
    assert not outcome.is_error
    assert source.read_text() == SOURCE.replace("def f", "def first").replace("def g", "def second")


async def test_not_found(run_tool: RunTool, source: Path) -> None:
    outcome = await run_tool("Edit", file_path="m.py", old_string="def zzz", new_string="def y")
    assert outcome == ToolOutcome(
        "Error: old_string was not found in m.py. Read the file again and copy the exact text "
        "to replace.",
        True,
    )


async def test_not_found_but_matches_ignoring_whitespace(run_tool: RunTool, source: Path) -> None:
    outcome = await run_tool(
        "Edit", file_path="m.py", old_string="def g():\n  x = 1", new_string="def g():\n  x = 2"
    )
    assert outcome == ToolOutcome(
        "Error: old_string was not found in m.py. It matches at lines 6-7 if whitespace is "
        "ignored: the indentation, tabs versus spaces or line breaks differ. Copy the exact "
        "text from Read's output.",
        True,
    )


async def test_file_must_have_been_read(run_tool: RunTool, ws: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    outcome = await run_tool("Edit", file_path="a.txt", old_string="hello", new_string="bye")
    assert outcome == ToolOutcome(
        "Error: a.txt has not been read in this session; Read it before changing it.", True
    )


async def test_file_changed_since_read(run_tool: RunTool, source: Path) -> None:
    source.write_text(SOURCE + "# appended elsewhere\n")
    outcome = await run_tool("Edit", file_path="m.py", old_string="def g", new_string="def h")
    assert outcome == ToolOutcome(
        "Error: m.py changed on disk since it was last read (another program or session wrote it); "
        "Read it again before changing it.",
        True,
    )


async def test_missing_file_suggests_write(run_tool: RunTool) -> None:
    outcome = await run_tool("Edit", file_path="new.py", old_string="a", new_string="b")
    assert outcome == ToolOutcome(
        "Error: File does not exist: new.py. To create a file use Write.", True
    )


async def test_identical_strings_are_refused(run_tool: RunTool, source: Path) -> None:
    outcome = await run_tool("Edit", file_path="m.py", old_string="x", new_string="x")
    assert outcome == ToolOutcome(
        "Error: old_string and new_string are the same; there is nothing to change.", True
    )


async def test_empty_old_string_is_refused(run_tool: RunTool, source: Path) -> None:
    outcome = await run_tool("Edit", file_path="m.py", old_string="", new_string="x")
    assert outcome == ToolOutcome(
        "Error: old_string is empty. To create a file use Write; to insert text, include the "
        "neighbouring text in old_string and new_string.",
        True,
    )


async def test_crlf_file_keeps_its_line_endings(run_tool: RunTool, ws: Path) -> None:
    (ws / "dos.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await run_tool("Read", file_path="dos.txt")
    outcome = await run_tool("Edit", file_path="dos.txt", old_string="one\ntwo", new_string="1\n2")
    assert not outcome.is_error
    assert (ws / "dos.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_bytes_that_are_not_utf8_survive(run_tool: RunTool, ws: Path) -> None:
    # UTF-8 with a stray byte: the byte is kept as it was.
    (ws / "stray.txt").write_bytes(
        "naïve caf\xe9\nx = 1\n".encode("latin-1").replace(b"na\xef", "naï".encode())
    )
    await run_tool("Read", file_path="stray.txt")
    outcome = await run_tool("Edit", file_path="stray.txt", old_string="x = 1", new_string="x = 2")
    assert outcome == ToolOutcome(
        "Edited stray.txt: replaced 1 occurrence (first at line 2).",
        False,
        "--- a/stray.txt\n+++ b/stray.txt\n@@ -1,2 +1,2 @@\n naïve caf\ufffd\n-x = 1\n+x = 2\n",
    )
    assert (ws / "stray.txt").read_bytes() == "naïve ".encode() + b"caf\xe9\nx = 2\n"


async def test_a_latin1_file_is_edited_as_latin1(run_tool: RunTool, ws: Path) -> None:
    (ws / "latin1.txt").write_bytes(b"caf\xe9\nx = 1\n")
    await run_tool("Read", file_path="latin1.txt")
    outcome = await run_tool("Edit", file_path="latin1.txt", old_string="café", new_string="thé")
    assert outcome == ToolOutcome(
        "Edited latin1.txt: replaced 1 occurrence (first at line 1).",
        False,
        "--- a/latin1.txt\n+++ b/latin1.txt\n@@ -1,2 +1,2 @@\n-café\n+thé\n x = 1\n",
    )
    assert (ws / "latin1.txt").read_bytes() == b"th\xe9\nx = 1\n"
    refused = await run_tool("Edit", file_path="latin1.txt", old_string="thé", new_string="€")
    assert refused == ToolOutcome(
        "Error: The file is Latin-1 (ISO-8859-1) and the text has characters Latin-1 "
        "(ISO-8859-1) cannot hold ('€'); keep to characters it can hold, or convert the file "
        "first.",
        True,
    )
    assert (ws / "latin1.txt").read_bytes() == b"th\xe9\nx = 1\n"


async def test_outside_the_workspace_is_refused(
    run_tool: RunTool, tmp_path: Path, ctx: ToolContext
) -> None:
    outside = tmp_path / "o.txt"
    outside.write_text("a\n")
    await run_tool("Read", file_path=str(outside))
    outcome = await run_tool("Edit", file_path=str(outside), old_string="a", new_string="b")
    assert outcome == ToolOutcome(
        f"Error: {outside} is outside the workspace ({ctx.workspace}); writing there is refused.",
        True,
    )
