"""Read of a Jupyter notebook: its cells as Claude Code renders them, with ids NotebookEdit
takes, outputs trimmed, and the pictures among the outputs shown to the model as images."""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tether.protocol import Base64ImageSource, ToolUseBlock
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

RunTool = Callable[..., Awaitable[ToolOutcome]]

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


def code(source: str, *outputs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "metadata": {},
        "execution_count": 1,
        "outputs": list(outputs),
        "source": source,
        **extra,
    }


def write_notebook(path: Path, cells: list[dict[str, Any]], minor: int = 4, **meta: Any) -> None:
    path.write_text(
        json.dumps({"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": minor})
    )


async def test_cells_and_outputs_are_rendered_with_the_ids_notebookedit_takes(
    run_tool: RunTool, ws: Path
) -> None:
    picture = base64.b64encode(PNG).decode()
    write_notebook(
        ws / "a.ipynb",
        [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "words"]},
            code(
                "print(1)\nplot()",
                {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                {
                    "output_type": "display_data",
                    "metadata": {},
                    # Notebooks wrap base64 across lines; the image is the same.
                    "data": {
                        "image/png": picture[:40] + "\n" + picture[40:],
                        "text/plain": "<Fig>",
                    },
                },
                {
                    "output_type": "error",
                    "ename": "ValueError",
                    "evalue": "bad",
                    "traceback": ["\x1b[0;31mValueError\x1b[0m: bad"],
                },
                {"output_type": "something_new"},
            ),
        ],
    )
    outcome = await run_tool("Read", file_path="a.ipynb")
    assert not outcome.is_error, outcome.content
    assert outcome.content == (
        '<cell id="cell-0"><cell_type>markdown</cell_type># Title\nwords</cell id="cell-0">\n'
        '<cell id="cell-1">print(1)\nplot()</cell id="cell-1">\n'
        "\n1\n\n"
        "\n<Fig>\n"
        "\n[PNG image output: image 1 of this result, shown below]\n"
        "\nValueError: bad\nValueError: bad\n"
        "\nOutputs of an unknown type are not shown."
    )
    [image] = outcome.images
    assert isinstance(image.source, Base64ImageSource)
    assert (image.source.media_type, base64.b64decode(image.source.data)) == ("image/png", PNG)
    # The ids shown are the ones NotebookEdit finds.
    edited = await run_tool(
        "NotebookEdit", notebook_path="a.ipynb", cell_id="cell-1", new_source="print(2)"
    )
    assert not edited.is_error, edited.content
    assert json.loads((ws / "a.ipynb").read_text())["cells"][1]["source"] == "print(2)"


async def test_own_ids_and_a_language_other_than_python_are_shown(
    run_tool: RunTool, ws: Path
) -> None:
    write_notebook(
        ws / "r.ipynb",
        [
            code("x <- 1", id="ab12"),
            {"cell_type": "raw", "id": "z9", "metadata": {}, "source": "r"},
        ],
        minor=5,
        language_info={"name": "R"},
    )
    outcome = await run_tool("Read", file_path="r.ipynb")
    assert outcome.content == (
        '<cell id="ab12"><language>R</language>x <- 1</cell id="ab12">\n'
        '<cell id="z9"><cell_type>raw</cell_type>r</cell id="z9">'
    )


async def test_a_long_output_is_cut_in_the_middle_and_says_how_to_see_it(
    run_tool: RunTool, ws: Path
) -> None:
    lines = "".join(f"line {n}\n" for n in range(5000))
    write_notebook(ws / "long.ipynb", [code("loop()", {"output_type": "stream", "text": lines})])
    outcome = await run_tool("Read", file_path="long.ipynb")
    assert len(outcome.content) < 11_000
    assert "line 0\n" in outcome.content
    assert "line 4999\n" in outcome.content
    assert "line 2500\n" not in outcome.content
    assert "of this cell's outputs left out; see them all with Bash: jq '.cells[0].outputs' " in (
        outcome.content
    )


async def test_a_large_notebook_is_read_a_window_of_cells_at_a_time(
    run_tool: RunTool, ws: Path
) -> None:
    cells = [code(f"# cell {n}\n" + "x = 1\n" * 400) for n in range(60)]
    write_notebook(ws / "big.ipynb", cells)
    first = await run_tool("Read", file_path="big.ipynb")
    assert "# cell 0\n" in first.content
    assert "# cell 59\n" not in first.content
    shown = first.content.count("</cell id=")
    assert f"(showing cells 1-{shown} of 60, output size limit reached; Read with offset=" in (
        first.content
    )
    rest = await run_tool("Read", file_path="big.ipynb", offset=shown + 1, limit=2)
    assert rest.content.startswith(f'<cell id="cell-{shown}"># cell {shown}\n')
    assert rest.content.count("</cell id=") == 2
    past = await run_tool("Read", file_path="big.ipynb", offset=61)
    assert past.is_error
    assert "big.ipynb has only 60 cells; offset 61 is past the end" in past.content


async def test_pictures_beyond_the_budget_of_one_read_are_named_not_sent(
    run_tool: RunTool, ws: Path
) -> None:
    big = base64.b64encode(PNG + bytes(200_000)).decode()
    figure = {"output_type": "display_data", "metadata": {}, "data": {"image/png": big}}
    write_notebook(ws / "pics.ipynb", [code("a", figure), code("b", figure)])
    outcome = await run_tool("Read", file_path="pics.ipynb")
    assert len(outcome.images) == 1
    assert "image 1 of this result, shown below" in outcome.content
    assert "not shown, as the pictures of one Read are limited to" in outcome.content
    assert "Read with offset=2 to see it" in outcome.content


async def test_a_file_that_is_not_a_notebook_is_shown_as_text_saying_why(
    run_tool: RunTool, ws: Path
) -> None:
    (ws / "bad.ipynb").write_text('{"cells": 3}')
    outcome = await run_tool("Read", file_path="bad.ipynb")
    assert outcome.content == (
        '(bad.ipynb cannot be shown as a notebook: its top-level "cells" is not a list of '
        "cells each with a string or list source. Its text follows.)\n"
        '     1\t{"cells": 3}'
    )


async def test_structured_result_is_claude_codes_notebook_read(ctx: ToolContext) -> None:
    write_notebook(
        ctx.workspace / "s.ipynb",
        [code("1+1", {"output_type": "execute_result", "data": {"text/plain": ["2"]}})],
    )
    call = ToolUseBlock(id="c1", name="Read", input={"file_path": "s.ipynb"})
    outcome = await ToolRegistry(builtin_tools()).run(call, ctx)
    assert outcome.structured == {
        "type": "notebook",
        "file": {
            "filePath": "s.ipynb",
            "cells": [
                {
                    "cellType": "code",
                    "source": "1+1",
                    "cell_id": "cell-0",
                    "language": "python",
                    "execution_count": 1,
                    "outputs": [{"output_type": "execute_result", "text": "2"}],
                }
            ],
        },
    }


async def test_edit_refuses_a_notebook_and_points_to_notebookedit(
    run_tool: RunTool, ws: Path
) -> None:
    path = ws / "Upper.IPYNB"
    write_notebook(path, [code("x = 1")])
    before = path.read_bytes()
    await run_tool("Read", file_path="Upper.IPYNB")
    outcome = await run_tool(
        "Edit", file_path="Upper.IPYNB", old_string="x = 1", new_string="x = 2"
    )
    assert (outcome.content, outcome.is_error) == (
        "Error: File is a Jupyter Notebook. Use the NotebookEdit to edit this file.",
        True,
    )
    assert path.read_bytes() == before
    edited = await run_tool(
        "NotebookEdit", notebook_path="Upper.IPYNB", cell_id="cell-0", new_source="x = 2"
    )
    assert not edited.is_error, edited.content
