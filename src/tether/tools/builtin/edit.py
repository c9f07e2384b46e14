"""Edit: replace an exact piece of text in a file the model has read."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.checked_write import Current, change_file, read_current
from tether.tools.builtin.files import write_diffs
from tether.tools.builtin.read import BINARY_SNIFF_BYTES
from tether.tools.builtin.read_notebook import USE_NOTEBOOK_EDIT, is_notebook
from tether.tools.builtin.text_encoding import (
    TextEncoding,
    encoding_of,
    line_ending_of,
    with_line_ending,
    written_digest,
)
from tether.tools.context import ToolContext
from tether.tools.os_text import OsText


class EditInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    file_path: OsText = Field(
        description="The file to change: absolute, or relative to the workspace."
    )
    old_string: str = Field(description="The exact text to replace, as it appears in the file.")
    new_string: str = Field(description="The text to put in its place (must differ).")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )


def check_edit(ctx: ToolContext, args: EditInput) -> None:
    """What makes an Edit impossible, found before anyone is asked to approve it."""
    _require_change(args)
    path = ctx.resolve(args.file_path)
    shown = ctx.show(path)
    _planned_edit(path, shown, ctx, args, read_current(path, shown))


@tool("Edit", read_only=False, check=check_edit, paths=("file_path",))
async def edit(ctx: ToolContext, args: EditInput) -> ToolOutput:
    """Replace exact text in a file.

    - The file must have been read with Read in this session, and not changed on disk since.
    - `old_string` must match the file exactly, whitespace and indentation included; copy it
      from Read's output without the line-number prefix (number and tab).
    - `old_string` must occur exactly once: include enough surrounding lines to make it unique,
      or set `replace_all` to change every occurrence (e.g. to rename a variable).
    - To create a file use Write. Revert undoes the edit.
    - A Jupyter notebook (.ipynb) is changed with NotebookEdit, not Edit.
    """
    _require_change(args)
    path = ctx.resolve(args.file_path)
    shown = ctx.show(path)
    ctx.require_writable(path)
    plans: list[_Plan] = []

    def new_content(current: Current) -> bytes:
        # Worked out from the file as it is at the moment of writing, not as it was checked.
        plans.append(plan := _planned_edit(path, shown, ctx, args, current))
        return plan.encoding.encode(plan.updated)

    change = await change_file(ctx, path, shown, new_content, snapshot=True)
    [plan] = plans
    replaced = plan.count if args.replace_all else 1
    what = "1 occurrence" if replaced == 1 else f"{replaced} occurrences"
    summary = f"Edited {shown}: replaced {what} (first at line {plan.first_line})."
    diff, patch = await write_diffs(plan.text, plan.updated, shown)
    structured = {
        "filePath": args.file_path,
        "oldString": args.old_string,
        "newString": args.new_string,
        "originalFile": plan.text,
        "structuredPatch": patch,
        "userModified": False,
        "replaceAll": args.replace_all,
        **written_digest(change.after),
    }
    return ToolOutput(text=summary, diff=diff, structured=structured)


@dataclass(frozen=True)
class _Plan:
    text: str
    updated: str
    count: int
    first_line: int
    encoding: TextEncoding


def _require_change(args: EditInput) -> None:
    if not args.old_string:
        raise ToolError(
            "old_string is empty. To create a file use Write; to insert text, include the "
            "neighbouring text in old_string and new_string."
        )
    if args.old_string == args.new_string:
        raise ToolError("old_string and new_string are the same; there is nothing to change.")


def _planned_edit(
    path: Path, shown: str, ctx: ToolContext, args: EditInput, current: Current
) -> _Plan:
    """The edit worked out from the file's `current` content, without writing anything."""
    if is_notebook(path):
        raise ToolError(USE_NOTEBOOK_EDIT)
    if current.content is None or current.stat is None:
        raise ToolError(f"File does not exist: {shown}. To create a file use Write.")
    ctx.files.require_seen(path, shown, current.stat, current.content)
    encoding = encoding_of(current.content[:BINARY_SNIFF_BYTES])
    text = encoding.decode_exactly(current.content, shown)
    old, new = _match_line_endings(text, args.old_string, args.new_string)
    count = text.count(old)
    if count == 0:
        raise ToolError(_not_found_message(text, old, shown))
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {shown}. Include more surrounding context to "
            "make it unique, or set replace_all to replace every occurrence."
        )
    updated = text.replace(old, new) if args.replace_all else text.replace(old, new, 1)
    first_line = text.count("\n", 0, text.index(old)) + 1
    return _Plan(text, updated, count, first_line, encoding)


def _match_line_endings(text: str, old: str, new: str) -> tuple[str, str]:
    # Read shows CRLF files without the \r; a model's strings then lack them too, and the
    # lines it adds end as the file's other lines do.
    if line_ending_of(text) != "\r\n":
        return old, new
    if "\n" in old and "\r\n" not in old and old not in text:
        old = with_line_ending(old, "\r\n")
    if "\r\n" not in new:
        new = with_line_ending(new, "\r\n")
    return old, new


def _not_found_message(text: str, old: str, shown: str) -> str:
    message = f"old_string was not found in {shown}."
    words = old.split()
    if words:
        loose = re.compile(r"\s+".join(re.escape(word) for word in words))
        match = loose.search(text)
        if match is not None:
            start = text.count("\n", 0, match.start()) + 1
            end = text.count("\n", 0, match.end()) + 1
            where = f"line {start}" if start == end else f"lines {start}-{end}"
            return (
                f"{message} It matches at {where} if whitespace is ignored: the indentation, "
                "tabs versus spaces or line breaks differ. Copy the exact text from Read's "
                "output."
            )
    return f"{message} Read the file again and copy the exact text to replace."
