"""Write: replace or create a whole file, atomically and revertibly."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.checked_write import Current, change_file, read_current
from tether.tools.builtin.files import count_lines, encode_text, write_diffs
from tether.tools.builtin.read import BINARY_SNIFF_BYTES
from tether.tools.builtin.text_encoding import (
    encoding_of,
    line_ending_of,
    with_line_ending,
    written_digest,
)
from tether.tools.context import ToolContext
from tether.tools.os_text import OsText


class WriteInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    file_path: OsText = Field(
        description="The file to write: absolute, or relative to the workspace."
    )
    content: str = Field(description="The complete new content of the file.")


def check_write(ctx: ToolContext, args: WriteInput) -> None:
    """What makes a Write impossible, found before anyone is asked to approve it: a directory
    in the way, an existing file not read (or changed since)."""
    path = ctx.resolve(args.file_path)
    shown = ctx.show(path)
    current = read_current(path, shown)
    if current.content is not None and current.stat is not None:
        ctx.files.require_seen(path, shown, current.stat, current.content)


@tool("Write", read_only=False, check=check_write, paths=("file_path",))
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
    olds: list[str | None] = []

    def new_content(current: Current) -> bytes:
        # Over an existing file, its encoding and line endings are kept, as Claude Code does.
        if current.content is None:
            olds.append(None)
            return encode_text(args.content)
        encoding = encoding_of(current.content[:BINARY_SNIFF_BYTES])
        old = encoding.decode_exactly(current.content, shown)
        olds.append(old)
        return encoding.encode(with_line_ending(args.content, line_ending_of(old)))

    change = await change_file(ctx, path, shown, new_content, snapshot=True)
    lines = count_lines(args.content)
    [old_text] = olds
    if change.before is None:
        text = f"Created {shown} ({lines} lines)"
    else:
        text = f"Wrote {lines} lines to {shown}"
    diff, patch = await write_diffs(old_text, args.content, shown, patch_created=False)
    structured = {
        "type": "create" if old_text is None else "update",
        "filePath": args.file_path,
        "content": args.content,
        "structuredPatch": patch,
        "originalFile": old_text,
        "userModified": False,
        **written_digest(change.after),
    }
    return ToolOutput(text=text, diff=diff, structured=structured)
