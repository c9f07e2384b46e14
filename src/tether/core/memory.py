"""The project's memory file: each compaction summary appended, the newest kept under a cap.

The file (`.tether/memory.md`) is markdown the user may read and edit; it is kept out of git
(`tether.config.local_files`). Each entry starts with
an HTML comment line, invisible when rendered, that marks where entries begin; text before the
first entry is the user's own and is never dropped.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tether.config.local_files import ignore_local_files
from tether.text_files import read_instructions, read_text_file

ENTRY_MARK = "<!-- tether memory entry -->"
DEFAULT_CAP_CHARS = 20_000
MAX_FILE_BYTES = 4 * 1024 * 1024
"""A memory file the user made larger than this is not read (only 20,000 characters are kept)."""


def append_memory(
    path: Path, summary: str, *, cap_chars: int = DEFAULT_CAP_CHARS, when: str
) -> None:
    """Append `summary` as a new entry dated `when`; drop the oldest entries while the file
    is over `cap_chars`. The file is replaced atomically (temp file, then rename), so a reader
    sees the old file or the new one, never a half-written one."""
    preamble, entries = _split(load_memory(path))
    entries.append(f"{ENTRY_MARK}\n## Session summary, {when}\n\n{summary.strip()}\n")
    while len(entries) > 1 and len(_join(preamble, entries)) > cap_chars:
        entries.pop(0)
    text = _join(preamble, entries)
    if len(text) > cap_chars:
        # A single entry over the cap: keep its beginning (the user's requests come first).
        text = text[: cap_chars - 1].rstrip() + "\n"
    _write_atomically(path, text)
    ignore_local_files(path.parent, path.name)  # this machine's summaries, not the repository's


def load_memory(path: Path) -> str:
    """The memory file's text, or "" when there is none yet. Raises `UnreadableFile` (an
    `OSError`) for anything else at the path that is not readable UTF-8 text: it is then
    neither loaded nor rewritten, since what it holds could not be written back whole."""
    return read_text_file(path, limit_bytes=MAX_FILE_BYTES) or ""


def memory_for_prompt(path: Path, shown: str) -> tuple[str, list[str], bool]:
    """What of the memory file goes into the system prompt (its beginning, cut as instruction
    files are), the notes for the user (cut, or too large to add summaries to), and whether
    summaries may be appended (only to a file small enough to be read and written back whole).
    Raises `UnreadableFile` as `load_memory`."""
    text, cut = read_instructions(path, shown, lenient=False)
    notes = [f"memory: {cut}"] if cut is not None else []
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    writable = size <= MAX_FILE_BYTES
    if not writable:
        notes.append(
            f"memory: {shown} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB: "
            "compaction summaries are not added to it this session"
        )
    return text or "", notes, writable


def _split(text: str) -> tuple[str, list[str]]:
    parts = text.split(ENTRY_MARK)
    preamble = parts[0]
    entries = [ENTRY_MARK + part.rstrip("\n") + "\n" for part in parts[1:]]
    return preamble, entries


def _join(preamble: str, entries: list[str]) -> str:
    head = preamble.rstrip("\n")
    body = "\n".join(entries)
    return f"{head}\n\n{body}" if head else body


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as temp:
            temp.write(text)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
