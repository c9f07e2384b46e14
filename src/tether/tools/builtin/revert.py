"""Revert: undo this session's most recent Write or Edit of a file."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.checked_write import Current, change_file
from tether.tools.builtin.files import decode_text, human_size, write_diffs
from tether.tools.context import ToolContext
from tether.tools.os_errors import os_errors
from tether.tools.os_text import OsText


class RevertInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    file_path: OsText = Field(
        description="The file whose last change to undo: absolute, or relative to the workspace."
    )


def check_revert(ctx: ToolContext, args: RevertInput) -> None:
    """Nothing to undo makes a Revert impossible, found before anyone is asked to approve it."""
    path = ctx.resolve(args.file_path)
    if not ctx.files.snapshots.count(path):
        raise ToolError(_nothing_to_revert(ctx, path, ctx.show(path)))


def _nothing_to_revert(ctx: ToolContext, path: Path, shown: str) -> str:
    message = (
        f"Nothing to revert for {shown}: no Write or Edit of it in this session is left to undo."
    )
    dropped = ctx.files.snapshots.dropped(path)
    if dropped:
        message += f" {_dropped_note(ctx, dropped)}"
    return message


def _dropped_note(ctx: ToolContext, dropped: int) -> str:
    budget = human_size(ctx.files.snapshots.budget_bytes)
    return (
        f"The snapshots of its {dropped} earliest change(s) were dropped to keep this "
        f"session's snapshots under {budget}, so those changes can no longer be reverted."
    )


@tool("Revert", read_only=False, check=check_revert, paths=("file_path",))
async def revert(ctx: ToolContext, args: RevertInput) -> ToolOutput:
    """Undo the most recent Write or Edit of a file made in this session.

    - Restores the content the file had before that change; a file that the change created is
      deleted.
    - Calling it again undoes the change before that, and so on back to the first one.
    - Only changes made by Write and Edit are known; changes made through Bash are not.
    - The file must not have changed on disk since this session last read or wrote it.
    """
    path = ctx.resolve(args.file_path)
    shown = ctx.show(path)
    ctx.require_writable(path)
    if not ctx.files.snapshots.count(path):
        raise ToolError(_nothing_to_revert(ctx, path, shown))
    with os_errors(f"read back the snapshot of {shown}"):
        previous = ctx.files.snapshots.pop(path)

    def restored(current: Current) -> bytes | None:
        return previous

    try:
        change = await change_file(ctx, path, shown, restored, snapshot=False)
    except BaseException:
        ctx.files.snapshots.push(path, previous)
        raise
    left = ctx.files.snapshots.count(path)
    more = f" {left} earlier change(s) can still be reverted." if left else ""
    dropped = ctx.files.snapshots.dropped(path)
    if dropped:
        more += f" {_dropped_note(ctx, dropped)}"
    current_text = None if change.before is None else decode_text(change.before)
    restored_text = None if previous is None else decode_text(previous)
    diff, patch = await write_diffs(current_text, restored_text, shown)
    # Shaped like Write's result: what the file held, what it holds now ("delete": nothing).
    structured = {
        "type": "delete" if restored_text is None else "update",
        "filePath": args.file_path,
        "content": restored_text,
        "structuredPatch": patch,
        "originalFile": current_text,
    }
    if restored_text is None:
        text = f"Deleted {shown}: it did not exist before this session created it.{more}"
    else:
        text = f"Restored {shown} to its content before the last change.{more}"
    return ToolOutput(text=text, diff=diff, structured=structured)
