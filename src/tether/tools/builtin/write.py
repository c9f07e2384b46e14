"""Write: replace or create a whole file, atomically and revertibly."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.files import (
    count_lines,
    decode_text,
    encode_text,
    read_current,
    unified_diff,
    write_revertibly,
)
from tether.tools.context import ToolContext


class WriteInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    file_path: str = Field(description="The file to write: absolute, or relative to the workspace.")
    content: str = Field(description="The complete new content of the file.")


def check_write(ctx: ToolContext, args: WriteInput) -> None:
    """What makes a Write impossible, found before anyone is asked to approve it: a directory
    in the way, an existing file not read (or changed since)."""
    path = ctx.resolve(args.file_path)
    _check_target(ctx, path, ctx.show(path))


def _check_target(ctx: ToolContext, path: Path, shown: str) -> bytes | None:
    if path.is_dir():
        raise ToolError(f"{shown} is a directory; give the path of a file.")
    previous = read_current(path, shown)
    if previous is not None:
        ctx.files.require_fresh_read(path, shown)
    return previous


@tool("Write", read_only=False, check=check_write)
async def write(ctx: ToolContext, args: WriteInput) -> ToolOutput:
    """Write a file, replacing all of its content; missing parent directories are created.

    - An existing file must have been read with Read in this session first, and not changed on
      disk since; a new file needs no read.
    - Prefer Edit for changes to an existing file: it sends only the part that changes.
    - Do not create documentation or README files unless asked to.
    - Only files inside the workspace can be written. Revert undoes the write.
    """
    path = ctx.resolve(args.file_path)
    shown = ctx.show(path)
    ctx.require_writable(path)
    previous = _check_target(ctx, path, shown)
    data = encode_text(args.content)
    write_revertibly(ctx.files, path, previous, data, shown)
    lines = count_lines(args.content)
    old_text = None if previous is None else decode_text(previous)
    if previous is None:
        text = f"Created {shown} ({lines} lines)"
    else:
        text = f"Wrote {lines} lines to {shown}"
    return ToolOutput(text=text, diff=unified_diff(old_text, args.content, shown))
