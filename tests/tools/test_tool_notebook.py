"""NotebookEdit: one cell of a Jupyter notebook replaced, inserted or deleted, the rest of the
notebook kept as it was."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tether.protocol import ToolUseBlock
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

RunTool = Callable[..., Awaitable[ToolOutcome]]


def notebook(minor: int = 5) -> dict[str, Any]:
    cells: list[dict[str, Any]] = [
        {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "text"]},
        {
            "cell_type": "code",
            "id": "load",
            "metadata": {"tags": ["keep"]},
            "execution_count": 3,
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["1\n"]}],
            "source": "x = 1\nprint(x)",
        },
    ]
    if minor < 5:
        for cell in cells:
            del cell["id"]
    return {
        "cells": cells,
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": minor,
    }


@pytest.fixture
async def nb(run_tool: RunTool, ws: Path) -> Path:
    path = ws / "a.ipynb"
    path.write_text(json.dumps(notebook()))
    await run_tool("Read", file_path="a.ipynb")
    return path


async def test_replace_sets_the_source_and_clears_a_code_cells_outputs(
    run_tool: RunTool, nb: Path
) -> None:
    outcome = await run_tool(
        "NotebookEdit", notebook_path=str(nb), cell_id="load", new_source="y = 2"
    )
    assert (outcome.content, outcome.is_error) == ("Updated cell load of a.ipynb with y = 2", False)
    expected = notebook()
    expected["cells"][1].update(source="y = 2", execution_count=None, outputs=[])
    assert json.loads(nb.read_text()) == expected


async def test_insert_goes_after_the_cell_named_or_first(run_tool: RunTool, nb: Path) -> None:
    after = await run_tool(
        "NotebookEdit",
        notebook_path="a.ipynb",
        cell_id="intro",
        new_source="z = 3",
        cell_type="code",
        edit_mode="insert",
    )
    assert not after.is_error, after.content
    first = await run_tool(
        "NotebookEdit",
        notebook_path="a.ipynb",
        new_source="# Top",
        cell_type="markdown",
        edit_mode="insert",
    )
    assert not first.is_error, first.content
    cells = json.loads(nb.read_text())["cells"]
    assert [(c["cell_type"], c["source"]) for c in cells] == [
        ("markdown", "# Top"),
        ("markdown", ["# Title\n", "text"]),
        ("code", "z = 3"),
        ("code", "x = 1\nprint(x)"),
    ]
    assert cells[2]["outputs"] == []
    assert cells[2]["execution_count"] is None
    assert "outputs" not in cells[0]
    assert len({c["id"] for c in cells}) == 4  # nbformat 4.5: every new cell gets an id


async def test_delete_by_index_name_and_an_old_notebook_gets_no_ids(
    run_tool: RunTool, ws: Path
) -> None:
    path = ws / "old.ipynb"
    path.write_text(json.dumps(notebook(minor=4)))
    await run_tool("Read", file_path="old.ipynb")
    deleted = await run_tool(
        "NotebookEdit",
        notebook_path="old.ipynb",
        cell_id="cell-0",
        new_source="",
        edit_mode="delete",
    )
    assert (deleted.content, deleted.is_error) == ("Deleted cell cell-0 of old.ipynb.", False)
    inserted = await run_tool(
        "NotebookEdit",
        notebook_path="old.ipynb",
        new_source="a",
        cell_type="code",
        edit_mode="insert",
    )
    assert not inserted.is_error, inserted.content
    cells = json.loads(path.read_text())["cells"]
    assert [c["source"] for c in cells] == ["a", "x = 1\nprint(x)"]
    assert all("id" not in c for c in cells)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"cell_id": "nope"}, "No cell 'nope' in a.ipynb (2 cells; `cell-N` names the cell"),
        ({"edit_mode": "insert"}, "cell_type is required with edit_mode=insert"),
        ({}, "cell_id is required with edit_mode=replace."),
        ({"cell_id": "cell-7"}, "No cell 'cell-7' in a.ipynb"),
    ],
)
async def test_bad_requests_are_refused_and_change_nothing(
    run_tool: RunTool, nb: Path, fields: dict[str, Any], error: str
) -> None:
    before = nb.read_bytes()
    outcome = await run_tool("NotebookEdit", notebook_path="a.ipynb", new_source="q", **fields)
    assert outcome.content.startswith(f"Error: {error}"), outcome.content
    assert outcome.is_error
    assert nb.read_bytes() == before


async def test_an_unread_or_damaged_notebook_is_refused(run_tool: RunTool, ws: Path) -> None:
    path = ws / "b.ipynb"
    path.write_text(json.dumps(notebook()))
    unread = await run_tool("NotebookEdit", notebook_path="b.ipynb", cell_id="load", new_source="q")
    assert (unread.content, unread.is_error) == (
        "Error: b.ipynb has not been read in this session; Read it before changing it.",
        True,
    )
    path.write_text("{not json")
    await run_tool("Read", file_path="b.ipynb")
    damaged = await run_tool(
        "NotebookEdit", notebook_path="b.ipynb", cell_id="load", new_source="q"
    )
    assert damaged.is_error
    assert "b.ipynb is not valid notebook JSON" in damaged.content
    assert path.read_text() == "{not json"


async def test_structured_result_is_claude_codes(ctx: ToolContext, nb: Path) -> None:
    registry = ToolRegistry(builtin_tools())
    call = ToolUseBlock(
        id="c1",
        name="NotebookEdit",
        input={"notebook_path": str(nb), "cell_id": "load", "new_source": "y = 2"},
    )
    before = nb.read_text()
    outcome = await registry.run(call, ctx)
    assert outcome.structured == {
        "new_source": "y = 2",
        "old_source": "x = 1\nprint(x)",
        "cell_id": "load",
        "cell_type": "code",
        "language": "python",
        "edit_mode": "replace",
        "error": "",
        "notebook_path": str(nb),
        "original_file": before,
        "updated_file": nb.read_text(),
    }


@pytest.mark.parametrize("mode", ["insert", "replace", "delete"])
async def test_a_cell_one_past_the_end_is_no_cell_for_any_edit(
    run_tool: RunTool, nb: Path, mode: str
) -> None:
    before = nb.read_bytes()
    outcome = await run_tool(
        "NotebookEdit",
        notebook_path="a.ipynb",
        cell_id="cell-2",
        new_source="C2",
        cell_type="code",
        edit_mode=mode,
    )
    assert outcome.is_error
    assert outcome.content == (
        "Error: No cell 'cell-2' in a.ipynb (2 cells; `cell-N` names the cell at 0-based index "
        "N). Its cells: intro, load. To add a cell at the end, insert after 'load'."
    )
    assert nb.read_bytes() == before


@pytest.mark.parametrize("minor", [4, 5])
async def test_every_id_reported_names_that_cell_in_the_next_call(
    run_tool: RunTool, ws: Path, minor: int
) -> None:
    path = ws / "n.ipynb"
    path.write_text(json.dumps(notebook(minor=minor)))
    await run_tool("Read", file_path="n.ipynb")
    last = "cell-1" if minor < 5 else "load"
    inserted = await run_tool(
        "NotebookEdit",
        notebook_path="n.ipynb",
        cell_id=last,
        new_source="c",
        cell_type="code",
        edit_mode="insert",
    )
    assert not inserted.is_error, inserted.content
    told = inserted.content.split()[2]
    replaced = await run_tool(
        "NotebookEdit", notebook_path="n.ipynb", cell_id=told, new_source="C2"
    )
    assert replaced.content.startswith(f"Updated cell {told} of n.ipynb"), replaced.content
    cells = json.loads(path.read_text())["cells"]
    assert [c["source"] for c in cells] == [["# Title\n", "text"], "x = 1\nprint(x)", "C2"]
    # Read shows the same id for the cell.
    read = await run_tool("Read", file_path="n.ipynb")
    assert f'<cell id="{told}">C2</cell id="{told}">' in read.content
