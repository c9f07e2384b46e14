"""Read: a text file as numbered lines (`cat -n` style), a window at a time, in bounded memory."""

from __future__ import annotations

import codecs
import difflib
import io
import mimetypes
import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.files import human_size
from tether.tools.builtin.read_image import image_type, read_image
from tether.tools.builtin.read_notebook import (
    MAX_NOTEBOOK_BYTES,
    NotANotebook,
    is_notebook,
    render_notebook,
)
from tether.tools.builtin.text_encoding import UTF8, encoding_of
from tether.tools.context import ToolContext
from tether.tools.file_state import version_of_open_file
from tether.tools.os_errors import describe_os_error, os_errors
from tether.tools.os_text import OsText

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 80_000
"""Stay under the registry's cut so the note saying how to read on is never lost."""
BINARY_SNIFF_BYTES = 8192
MAX_RECODED_BYTES = 64 * 1024 * 1024
"""A text file in another encoding than UTF-8 is decoded whole, up to this size."""
_LINE_READ_BYTES = MAX_LINE_CHARS * 4 + 4  # enough bytes for MAX_LINE_CHARS characters
_SKIP_CHUNK = 1 << 20

_MAGIC = (
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"PK\x03\x04", "zip archive"),
    (b"\x1f\x8b", "gzip archive"),
    (b"\x7fELF", "ELF executable"),
    (b"SQLite format 3", "SQLite database"),
)


class ReadInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    file_path: OsText = Field(
        description="The file to read: absolute, or relative to the workspace."
    )
    offset: int | None = Field(
        default=None, ge=0, description="The 1-based line number to start at (default 1)."
    )
    limit: int | None = Field(
        default=None, ge=1, description=f"How many lines to read (default {DEFAULT_LIMIT})."
    )


@tool("Read", read_only=True, paths=("file_path",))
async def read(ctx: ToolContext, args: ReadInput) -> ToolOutput:
    """Read a text file; lines come back numbered like `cat -n` (number, tab, line). A PNG,
    JPEG, GIF or WebP picture is shown to you as an image. A Jupyter notebook (.ipynb) comes
    back as its cells, each `<cell id="ID">source</cell id="ID">` followed by its outputs (the
    pictures among them shown to you as images); NotebookEdit takes those ids.

    - Reads up to 2000 lines from the start by default; use `offset` (1-based line) and `limit`
      for a window into long files. The result says when the view is partial. For a notebook
      they count cells.
    - Lines longer than 2000 characters are cut.
    - Files outside the workspace can be read too.
    - Directories cannot be read: use Glob to list files, or Bash `ls`.
    - Read a file before you Write over it or Edit it.
    """
    path = ctx.resolve(args.file_path)
    shown = ctx.show(path)
    _require_readable_file(path, shown)
    first = max(args.offset or 1, 1)
    limit = args.limit or DEFAULT_LIMIT
    try:
        # Non-blocking: what became a FIFO since the check above must not hang the read.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ToolError(f"{shown} is not a regular file (a device, pipe or socket).")
            # The version seen is taken from the open file, before its content is shown.
            seen = version_of_open_file(fd)
            picture = image_type(f.read(16))
            if picture is not None:
                output = read_image(f, picture, shown)
            elif isinstance(notebook := _read_notebook(f, path, shown, args), ToolOutput):
                output = notebook
            else:
                view = _read_window(*_as_utf8(f, shown), first, limit, path, shown)
                text = view.text if notebook is None else f"{notebook}\n{view.text}"
                structured = view.structured(args.file_path)
                if seen.digest is not None:
                    # The bytes the model saw, so a resumed session can tell whether the file
                    # is still that version (the text shown loses CRs, cut lines, encodings).
                    structured["sha256"] = seen.digest.hex()
                output = ToolOutput(text, structured=structured)
    except OSError as e:
        raise ToolError(describe_os_error(e, f"read {shown}")) from None
    ctx.files.saw(path, seen)
    return output


@dataclass(frozen=True)
class _View:
    text: str
    """The numbered lines and notes the model reads."""
    lines: tuple[str, ...] = ()
    """The lines shown, as text."""
    first: int = 1
    total: int = 0
    ends_with_newline: bool = False

    def structured(self, file_path: str) -> dict[str, Any]:
        """Read's `tool_use_result` (Claude Code's `type: "text"` file read)."""
        content = "\n".join(self.lines) + ("\n" if self.ends_with_newline else "")
        return {
            "type": "text",
            "file": {
                "filePath": file_path,
                "content": content,
                "numLines": len(self.lines),
                "startLine": self.first,
                "totalLines": self.total,
            },
        }


def _as_utf8(f: BinaryIO, shown: str) -> tuple[BinaryIO, str | None]:
    """The file's text as UTF-8 bytes to show, and a note naming its encoding when it is
    another (decoded whole: such files are rarely large)."""
    f.seek(0)
    encoding = encoding_of(f.read(BINARY_SNIFF_BYTES))
    f.seek(0)
    if encoding is UTF8:
        return f, None
    size = os.fstat(f.fileno()).st_size
    if size > MAX_RECODED_BYTES:
        raise ToolError(
            f"{shown} is {encoding.label} text of {human_size(size)}, too large to show; "
            f"Bash with iconv reads parts of it, for example `iconv -f {encoding.codec} "
            f"-t utf-8 {shlex.quote(shown)} | head -n 100`."
        )
    text = encoding.decode(f.read())
    note = f"(the file is {encoding.label} text; Edit and Write keep that encoding)"
    return io.BytesIO(text.encode("utf-8", errors="surrogateescape")), note


def whole_text_shown(data: bytes) -> str | None:
    """The `content` Read's result gives of a whole text file holding `data` (decoded, CRLF
    shown as LF, long lines cut), or None when Read shows no such text: a binary file, or one
    too long to show whole. A transcript's read can then be compared with the file as it is."""
    text = encoding_of(data[:BINARY_SNIFF_BYTES]).decode(data)
    recoded = text.encode("utf-8", errors="surrogateescape")
    if b"\x00" in recoded[:BINARY_SNIFF_BYTES]:
        return None
    try:
        view = _read_window(io.BytesIO(recoded), None, 1, recoded.count(b"\n") + 1, Path(), "")
    except ToolError:
        return None
    if view.total != len(view.lines):
        return None
    return view.structured("")["file"]["content"]


def _read_notebook(f: BinaryIO, path: Path, shown: str, args: ReadInput) -> ToolOutput | str | None:
    """A .ipynb file's cells as Claude Code shows them. None: not a notebook's name; a note:
    the file is read as text, and the note, shown first, says why."""
    if not is_notebook(path):
        return None
    size = os.fstat(f.fileno()).st_size
    if size > MAX_NOTEBOOK_BYTES:
        return (
            f"({shown} is a notebook of {human_size(size)}, too large to show as cells; its "
            "JSON is shown as text lines. Bash with jq reads parts of it, for example "
            f"`jq '.cells[0]' {shlex.quote(shown)}`.)"
        )
    f.seek(0)
    try:
        return render_notebook(
            f.read(), shown, args.file_path, args.offset or 1, args.limit, MAX_OUTPUT_CHARS
        )
    except NotANotebook as e:
        return f"({shown} cannot be shown as a notebook: {e}. Its text follows.)"


def _require_readable_file(path: Path, shown: str) -> None:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ToolError(_missing_file_message(path, shown)) from None
    except OSError as e:
        raise ToolError(describe_os_error(e, f"read {shown}")) from None
    if stat.S_ISDIR(st.st_mode):
        raise ToolError(
            f"{shown} is a directory, not a file. Use Glob to find files in it, or Bash `ls`."
        )
    if not stat.S_ISREG(st.st_mode):
        raise ToolError(f"{shown} is not a regular file (a device, pipe or socket).")


def _missing_file_message(path: Path, shown: str) -> str:
    message = f"File does not exist: {shown}."
    parent = path.parent
    with os_errors(f"read {shown}"):
        parent_is_dir = parent.is_dir()
    if not parent_is_dir:
        return message + f" (its directory {parent} does not exist either)"
    try:
        with os.scandir(parent) as entries:
            names = [entry.name for _, entry in zip(range(5000), entries, strict=False)]
    except OSError:
        return message
    similar = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    if similar:
        message += " Did you mean " + " or ".join(repr(name) for name in similar) + "?"
    return message


def _read_window(
    f: BinaryIO, encoding_note: str | None, first: int, limit: int, path: Path, shown: str
) -> _View:
    head = f.read(BINARY_SNIFF_BYTES)
    if b"\x00" in head:
        size = f.seek(0, io.SEEK_END)  # `f` may be text recoded in memory: no descriptor
        raise ToolError(
            f"{shown} is a binary file ({_kind(head, path)}, {human_size(size)}); "
            "Read shows text files only."
        )
    if not head:
        return _View(f"(the file {shown} is empty)")
    f.seek(0)
    for skipped in range(first - 1):
        if not _skip_line(f):
            raise ToolError(_past_end(shown, skipped, first))
    out: list[str] = []
    texts: list[str] = []
    chars = 0
    invalid_utf8 = False
    budget_hit = False
    ended = False
    while len(out) < limit:
        raw = f.readline(_LINE_READ_BYTES)
        if not raw:
            break
        long_line = len(raw) == _LINE_READ_BYTES and not raw.endswith(b"\n")
        if long_line:
            _skip_line(f)
        text, valid = _decode_line(raw.removesuffix(b"\n"), complete=not long_line)
        invalid_utf8 = invalid_utf8 or not valid
        # CRLF files read like LF files; Edit puts the \r back when it writes.
        text = text.removesuffix("\r")
        if long_line or len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + f" [... line cut at {MAX_LINE_CHARS} characters]"
        rendered = f"{first + len(out):>6}\t{text}"
        if out and chars + len(rendered) > MAX_OUTPUT_CHARS:
            budget_hit = True
            break
        out.append(rendered)
        texts.append(text)
        ended = raw.endswith(b"\n") or long_line
        chars += len(rendered) + 1
    if not out:
        raise ToolError(_past_end(shown, first - 1, first))
    last = first + len(out) - 1
    # A line consumed but left out for the size budget still counts.
    total = last + int(budget_hit) + _count_rest(f)
    notes: list[str] = []
    if first > 1 or last < total:
        why = ", output size limit reached" if budget_hit else ""
        notes.append(f"(showing lines {first}-{last} of {total}{why}; use offset to read more)")
    if encoding_note is not None:
        notes.append(encoding_note)
    if invalid_utf8:
        notes.append("(the file is not valid UTF-8; undecodable bytes are shown as U+FFFD)")
    return _View("\n".join(out + notes), tuple(texts), first, total, ended)


def _past_end(shown: str, total: int, offset: int) -> str:
    return f"{shown} has only {total} lines; offset {offset} is past the end."


def _skip_line(f: BinaryIO) -> bool:
    """Move past the current line; False when already at the end of the file."""
    chunk = f.readline(_SKIP_CHUNK)
    if not chunk:
        return False
    while not chunk.endswith(b"\n"):
        chunk = f.readline(_SKIP_CHUNK)
        if not chunk:
            break
    return True


def _count_rest(f: BinaryIO) -> int:
    """Lines from the current position to the end (a last line without newline counts)."""
    count = 0
    last = b""
    while chunk := f.read(_SKIP_CHUNK):
        count += chunk.count(b"\n")
        last = chunk
    if last and not last.endswith(b"\n"):
        count += 1
    return count


def _decode_line(raw: bytes, *, complete: bool) -> tuple[str, bool]:
    """The line as text, and whether it was valid UTF-8. A cut line may end inside a
    character; the incremental decoder holds such a tail back instead of failing on it."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    try:
        return decoder.decode(raw, final=complete), True
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace"), False


def _kind(head: bytes, path: Path) -> str:
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "binary data"
