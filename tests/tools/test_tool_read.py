"""Read: cat -n format, windows, long lines, and every kind of file it refuses."""

from __future__ import annotations

import codecs
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome

RunTool = Callable[..., Awaitable[ToolOutcome]]


def numbered(lines: range) -> str:
    return "\n".join(f"{n:>6}\tline {n}" for n in lines)


def write_lines(path: Path, count: int) -> None:
    path.write_text("".join(f"line {n}\n" for n in range(1, count + 1)))


async def test_whole_file_in_cat_n_format(run_tool: RunTool, ws: Path, ctx: ToolContext) -> None:
    (ws / "a.txt").write_text("alpha\n\tindented\n\nlast")
    outcome = await run_tool("Read", file_path="a.txt")
    assert outcome == ToolOutcome(
        "     1\talpha\n     2\t\tindented\n     3\t\n     4\tlast", False
    )
    assert set(ctx.files.reads) == {ws / "a.txt"}


async def test_offset_and_limit_give_a_window(run_tool: RunTool, ws: Path) -> None:
    write_lines(ws / "a.txt", 10)
    outcome = await run_tool("Read", file_path=str(ws / "a.txt"), offset=3, limit=2)
    assert outcome == ToolOutcome(
        numbered(range(3, 5)) + "\n(showing lines 3-4 of 10; use offset to read more)", False
    )


async def test_offset_to_the_end(run_tool: RunTool, ws: Path) -> None:
    write_lines(ws / "a.txt", 5)
    outcome = await run_tool("Read", file_path="a.txt", offset=4)
    assert outcome == ToolOutcome(
        numbered(range(4, 6)) + "\n(showing lines 4-5 of 5; use offset to read more)", False
    )


async def test_default_limit_is_2000_lines(run_tool: RunTool, ws: Path) -> None:
    write_lines(ws / "big.txt", 2500)
    outcome = await run_tool("Read", file_path="big.txt")
    assert outcome == ToolOutcome(
        numbered(range(1, 2001)) + "\n(showing lines 1-2000 of 2500; use offset to read more)",
        False,
    )


async def test_long_lines_are_cut(run_tool: RunTool, ws: Path) -> None:
    (ws / "min.js").write_text("x" * 5000 + "\n" + "é" * 2500 + "\nshort\n")
    outcome = await run_tool("Read", file_path="min.js")
    marker = " [... line cut at 2000 characters]"
    assert outcome == ToolOutcome(
        f"     1\t{'x' * 2000}{marker}\n     2\t{'é' * 2000}{marker}\n     3\tshort", False
    )


async def test_output_stops_at_a_size_budget(run_tool: RunTool, ws: Path) -> None:
    (ws / "wide.txt").write_text(("y" * 1000 + "\n") * 300)
    outcome = await run_tool("Read", file_path="wide.txt")
    lines = outcome.content.split("\n")
    assert lines[-1] == (
        "(showing lines 1-79 of 300, output size limit reached; use offset to read more)"
    )
    assert lines[:-1] == [f"{n:>6}\t{'y' * 1000}" for n in range(1, 80)]


async def test_crlf_lines_read_without_carriage_returns(run_tool: RunTool, ws: Path) -> None:
    (ws / "dos.txt").write_bytes(b"one\r\ntwo\r\n")
    assert await run_tool("Read", file_path="dos.txt") == ToolOutcome(
        "     1\tone\n     2\ttwo", False
    )


async def test_empty_file(run_tool: RunTool, ws: Path, ctx: ToolContext) -> None:
    (ws / "empty.txt").touch()
    outcome = await run_tool("Read", file_path="empty.txt")
    assert outcome == ToolOutcome("(the file empty.txt is empty)", False)
    assert set(ctx.files.reads) == {ws / "empty.txt"}


async def test_offset_past_the_end(run_tool: RunTool, ws: Path, ctx: ToolContext) -> None:
    write_lines(ws / "a.txt", 3)
    for offset in (4, 50):
        outcome = await run_tool("Read", file_path="a.txt", offset=offset)
        assert outcome == ToolOutcome(
            f"Error: a.txt has only 3 lines; offset {offset} is past the end.", True
        )
    assert ctx.files.reads == {}


async def test_not_utf8_is_decoded_with_replacement(run_tool: RunTool, ws: Path) -> None:
    (ws / "stray.txt").write_bytes("naïve\n".encode() + b"caf\xe9\nok\n")
    outcome = await run_tool("Read", file_path="stray.txt")
    assert outcome == ToolOutcome(
        "     1\tnaïve\n     2\tcaf\ufffd\n     3\tok\n"
        "(the file is not valid UTF-8; undecodable bytes are shown as U+FFFD)",
        False,
    )


@pytest.mark.parametrize(
    ("data", "label"),
    [
        ("héllo\r\nwörld\n".encode("utf-16"), "UTF-16 (little-endian)"),
        (codecs.BOM_UTF16_BE + "héllo\r\nwörld\n".encode("utf-16-be"), "UTF-16 (big-endian)"),
        ("héllo\r\nwörld\n".encode("utf-16-le"), "UTF-16 (little-endian, no byte-order mark)"),
        ("héllo\r\nwörld\n".encode("utf-16-be"), "UTF-16 (big-endian, no byte-order mark)"),
        ("héllo\r\nwörld\n".encode("utf-32"), "UTF-32 (little-endian)"),
        ("héllo\r\nwörld\n".encode("latin-1"), "Latin-1 (ISO-8859-1)"),
    ],
)
async def test_text_in_other_encodings_is_read_as_text(
    run_tool: RunTool, ws: Path, data: bytes, label: str
) -> None:
    (ws / "wide.txt").write_bytes(data)
    outcome = await run_tool("Read", file_path="wide.txt")
    assert outcome == ToolOutcome(
        "     1\théllo\n     2\twörld\n"
        f"(the file is {label} text; Edit and Write keep that encoding)",
        False,
    )


async def test_directory_is_refused(run_tool: RunTool, ws: Path) -> None:
    (ws / "src").mkdir()
    assert await run_tool("Read", file_path="src") == ToolOutcome(
        "Error: src is a directory, not a file. Use Glob to find files in it, or Bash `ls`.", True
    )


async def test_binary_file_is_refused(run_tool: RunTool, ws: Path, ctx: ToolContext) -> None:
    # (Pictures are shown as images: test_sdk_images.)
    (ws / "bundle.zip").write_bytes(b"PK\x03\x04\x00\x00" + bytes(2042))
    (ws / "blob").write_bytes(b"abc\x00def")
    assert await run_tool("Read", file_path="bundle.zip") == ToolOutcome(
        "Error: bundle.zip is a binary file (zip archive, 2.0 KiB); Read shows text files only.",
        True,
    )
    assert await run_tool("Read", file_path="blob") == ToolOutcome(
        "Error: blob is a binary file (binary data, 7 bytes); Read shows text files only.", True
    )
    assert ctx.files.reads == {}


async def test_missing_file_suggests_similar_names(run_tool: RunTool, ws: Path) -> None:
    (ws / "config.yaml").write_text("a: 1\n")
    assert await run_tool("Read", file_path="config.yml") == ToolOutcome(
        "Error: File does not exist: config.yml. Did you mean 'config.yaml'?", True
    )


async def test_missing_directory(run_tool: RunTool, ws: Path) -> None:
    assert await run_tool("Read", file_path="nope/a.txt") == ToolOutcome(
        f"Error: File does not exist: nope/a.txt. (its directory {ws}/nope does not exist either)",
        True,
    )


async def test_files_outside_the_workspace_can_be_read(
    run_tool: RunTool, tmp_path: Path, ctx: ToolContext
) -> None:
    outside = tmp_path / "notes.txt"
    outside.write_text("hello\n")
    assert await run_tool("Read", file_path=str(outside)) == ToolOutcome("     1\thello", False)
    assert set(ctx.files.reads) == {outside}


async def test_a_fifo_is_refused(run_tool: RunTool, ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    assert await run_tool("Read", file_path="pipe") == ToolOutcome(
        "Error: pipe is not a regular file (a device, pipe or socket).", True
    )
