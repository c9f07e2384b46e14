"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook (.ipynb), with Claude
Code's input (`notebook_path`, `cell_id`, `new_source`, `cell_type`, `edit_mode`) and result."""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.checked_write import Current, change_file, read_current
from tether.tools.builtin.files import decode_text, unified_diff
from tether.tools.builtin.read_notebook import cell_id, is_notebook
from tether.tools.context import ToolContext
from tether.tools.os_text import OsText


class NotebookEditInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    notebook_path: OsText = Field(
        description="The Jupyter notebook (.ipynb) to edit: absolute, or relative to the workspace."
    )
    cell_id: str | None = Field(
        default=None,
        description="The id of the cell to edit, as Read shows it (`cell-N` also names the "
        "cell at 0-based index N). When inserting, the new cell goes after this cell, or "
        "first when it is not given.",
    )
    new_source: str = Field(description="The new source of the cell.")
    cell_type: Literal["code", "markdown"] | None = Field(
        default=None,
        description="The type of the cell (code or markdown). Defaults to the current cell's "
        "type; required with edit_mode=insert.",
    )
    edit_mode: Literal["replace", "insert", "delete"] = Field(
        default="replace", description="The edit to make: replace, insert or delete."
    )


def check_notebook_edit(ctx: ToolContext, args: NotebookEditInput) -> None:
    """What makes the edit impossible, found before anyone is asked to approve it."""
    path = ctx.resolve(args.notebook_path)
    shown = ctx.show(path)
    _planned(path, shown, ctx, args, read_current(path, shown))


@tool("NotebookEdit", read_only=False, check=check_notebook_edit, paths=("notebook_path",))
async def notebook_edit(ctx: ToolContext, args: NotebookEditInput) -> ToolOutput:
    """Replace, insert or delete one cell of a Jupyter notebook (.ipynb file).

    - The notebook must have been read with Read in this session, and not changed on disk since.
    - `cell_id` names the cell by its id as Read shows it (`cell-N` is the 0-based index N).
    - edit_mode=replace (the default) replaces the cell's source; a code cell's outputs and
      execution count are cleared.
    - edit_mode=insert adds a cell after `cell_id` (first when it is not given); `cell_type`
      is required.
    - edit_mode=delete removes the cell.
    Revert undoes the edit.
    """
    path = ctx.resolve(args.notebook_path)
    shown = ctx.show(path)
    ctx.require_writable(path)
    plans: list[_Plan] = []

    def new_content(current: Current) -> bytes:
        plans.append(plan := _planned(path, shown, ctx, args, current))
        return plan.updated.encode()

    await change_file(ctx, path, shown, new_content, snapshot=True)
    [plan] = plans
    structured: dict[str, Any] = {
        "new_source": args.new_source,
        "cell_id": plan.cell_id,
        "cell_type": plan.cell_type,
        "language": plan.language,
        "edit_mode": plan.mode,
        "error": "",
        "notebook_path": args.notebook_path,
        "original_file": plan.original,
        "updated_file": plan.updated,
    }
    if plan.old_source is not None:
        structured["old_source"] = plan.old_source
    if plan.mode == "delete":
        summary = f"Deleted cell {plan.cell_id} of {shown}."
    elif plan.mode == "insert":
        summary = f"Inserted cell {plan.cell_id} in {shown} with {args.new_source}"
    else:
        summary = f"Updated cell {plan.cell_id} of {shown} with {args.new_source}"
    diff = await asyncio.to_thread(unified_diff, plan.original, plan.updated, shown)
    return ToolOutput(text=summary, diff=diff, structured=structured)


@dataclass(frozen=True)
class _Plan:
    original: str
    updated: str
    cell_id: str
    cell_type: str
    language: str
    old_source: str | None
    mode: str


def _planned(
    path: Path, shown: str, ctx: ToolContext, args: NotebookEditInput, current: Current
) -> _Plan:
    """The edit worked out from the notebook's `current` content, without writing anything."""
    if not is_notebook(path):
        raise ToolError(f"{shown} is not a Jupyter notebook (.ipynb); use Edit for other files.")
    if current.content is None or current.stat is None:
        raise ToolError(f"Notebook does not exist: {shown}.")
    ctx.files.require_seen(path, shown, current.stat, current.content)
    original = decode_text(current.content)
    notebook, cells = _parsed(original, shown)
    mode = args.edit_mode
    index = _cell_index(cells, args.cell_id, shown) if args.cell_id is not None else None
    if mode != "insert" and index is None:
        raise ToolError(f"cell_id is required with edit_mode={mode}.")
    new_type = args.cell_type
    if mode == "insert":
        if new_type is None:
            raise ToolError("cell_type is required with edit_mode=insert (code or markdown).")
        at = 0 if index is None else index + 1
        cell = _new_cell(notebook, new_type, args.new_source)
        cells.insert(at, cell)
        ident = cell_id(cell, at)
        old_source = None
        cell_type: str = new_type
    else:
        assert index is not None
        cell = cells[index]
        old_source = _source_text(cell.get("source"))
        ident = cell_id(cell, index)
        cell_type = str(cell.get("cell_type", "code"))
        if mode == "delete":
            del cells[index]
        else:
            cell["source"] = args.new_source
            if args.cell_type is not None and args.cell_type != cell_type:
                cell["cell_type"] = cell_type = args.cell_type
            if cell_type == "code":
                cell["execution_count"] = None
                cell["outputs"] = []
            else:
                cell.pop("execution_count", None)
                cell.pop("outputs", None)
    updated = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    return _Plan(original, updated, ident, cell_type, _language(notebook), old_source, mode)


def _parsed(text: str, shown: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as e:
        raise ToolError(f"{shown} is not valid notebook JSON: {e}.") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):  # pyright: ignore[reportUnknownVariableType]
        raise ToolError(f"{shown} is not a Jupyter notebook: it has no list of cells.")
    return notebook, cells  # pyright: ignore[reportUnknownVariableType]


def _cell_index(cells: list[dict[str, Any]], wanted: str, shown: str) -> int:
    """The index of the cell `wanted` names: its id as Read shows it (`cell_id`), or `cell-N`
    for the cell at 0-based index N. Only a cell that exists is named, whatever the edit: one
    to insert after included."""
    for index, cell in enumerate(cells):
        if cell_id(cell, index) == wanted:
            return index
    number = wanted.removeprefix("cell-")
    if number != wanted and number.isdecimal() and int(number) < len(cells):
        return int(number)
    ids = [cell_id(cell, index) for index, cell in enumerate(cells)]
    known = f" Its cells: {', '.join(ids[:20])}{', ...' if len(ids) > 20 else ''}." if ids else ""
    last = f" To add a cell at the end, insert after {ids[-1]!r}." if ids else ""
    raise ToolError(
        f"No cell {wanted!r} in {shown} ({len(cells)} cells; `cell-N` names the cell at "
        f"0-based index N).{known}{last}"
    )


def _new_cell(notebook: dict[str, Any], cell_type: str, source: str) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": cell_type}
    # Cell ids came with nbformat 4.5; older notebooks must not get one.
    major, minor = notebook.get("nbformat", 4), notebook.get("nbformat_minor", 0)
    if isinstance(major, int) and isinstance(minor, int) and (major, minor) >= (4, 5):
        taken = {c.get("id") for c in notebook.get("cells", [])}
        while (new_id := secrets.token_hex(4)) in taken:
            pass
        cell["id"] = new_id
    cell["metadata"] = {}
    cell["source"] = source
    if cell_type == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def _source_text(source: object) -> str:
    if isinstance(source, list):
        return "".join(str(line) for line in source)  # pyright: ignore[reportUnknownVariableType]
    return source if isinstance(source, str) else ""


def _language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = info.get("name") if isinstance(info, dict) else None  # pyright: ignore[reportUnknownMemberType]
    return name if isinstance(name, str) else "python"
