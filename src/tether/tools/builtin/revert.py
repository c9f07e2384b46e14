"""Revert: undo this session's most recent Write or Edit of a file."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.files import (
    decode_text,
    delete_file,
    read_current,
    unified_diff,
    write_atomic,
)
from tether.tools.context import ToolContext


class RevertInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    file_path: str = Field(
        description="The file whose last change to undo: absolute, or relative to the workspace."
    )


def check_revert(ctx: ToolContext, args: RevertInput) -> None:
    """Nothing to undo makes a Revert impossible, found before anyone is asked to approve it."""
    path = ctx.resolve(args.file_path)
    if not ctx.files.snapshots.get(path):
        raise ToolError(_nothing_to_revert(ctx.show(path)))


def _nothing_to_revert(shown: str) -> str:
    return f"Nothing to revert for {shown}: no Write or Edit of it in this session is left to undo."


@tool("Revert", read_only=False, check=check_revert)
async def revert(ctx: ToolContext, args: RevertInput) -> ToolOutput:
    """Undo the most recent Write or Edit of a file made in this session.

    - Restores the content the file had before that change; a file that the change created is
      deleted.
    - Calling it again undoes the change before that, and so on back to the first one.
    - Only changes made by Write and Edit are known; changes made through Bash are not.
    """
    path = ctx.resolve(args.file_path)
    shown = ctx.show(path)
    ctx.require_writable(path)
    try:
        previous = ctx.files.pop_snapshot(path)
    except KeyError:
        raise ToolError(_nothing_to_revert(shown)) from None
    try:
        current = read_current(path, shown)
        if previous is None:
            delete_file(path, shown)
        else:
            write_atomic(path, previous, shown)
    except BaseException:
        ctx.files.push_snapshot(path, previous)
        raise
    left = len(ctx.files.snapshots.get(path, []))
    more = f" {left} earlier change(s) can still be reverted." if left else ""
    current_text = None if current is None else decode_text(current)
    if previous is None:
        ctx.files.reads.pop(path, None)
        text = f"Deleted {shown}: it did not exist before this session created it.{more}"
        return ToolOutput(text=text, diff=unified_diff(current_text, None, shown))
    ctx.files.record_read(path)
    text = f"Restored {shown} to its content before the last change.{more}"
    return ToolOutput(text=text, diff=unified_diff(current_text, decode_text(previous), shown))
