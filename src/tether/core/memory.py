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
INDEX_CHARS = 4_000
"""With semantic memory, how much of the memory file goes into the system prompt: the start
of the user's own text and a line per entry, newest first; the rest is found by MemorySearch."""
PREAMBLE_CHARS = 2_000
"""Of `INDEX_CHARS`, at most this much of the user's own text (before the first entry)."""
CHUNK_CHARS = 1_500
"""The memory file is kept in semantic memory in pieces of at most this size."""
PIECES_PER_SESSION = 256
"""At most this many new pieces are kept by one session's start (each is embedded: about
2 s of a thread); newest first: a larger file's oldest pieces are kept by later sessions."""
MEMORY_FILE_TAG = "memory.md"
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


def memory_index(text: str, shown: str) -> tuple[str, list[str], str | None]:
    """With semantic memory: what of the memory file `text` goes into the system prompt (the
    start of the user's text and one line per entry, newest first, within `INDEX_CHARS`),
    the pieces semantic memory keeps of it (all of it, so that MemorySearch finds what the
    prompt leaves out), and the note for the user when something is left out (None: whole)."""
    if len(text) <= INDEX_CHARS:
        return text, _chunks(text), None
    preamble, entries = _split(text)
    head = _cut(preamble.strip(), PREAMBLE_CHARS)
    lines: list[str] = []
    used = len(head)
    for entry in reversed(entries):
        line = f"- {_cut(_title(entry), 160)}"
        if used + len(line) + 1 > INDEX_CHARS - 300:
            break
        lines.append(line)
        used += len(line) + 1
    titles = f" and the titles of {len(lines)} of its {len(entries)} entries" if entries else ""
    note = (
        f"{shown} is {len(text):,} characters: the prompt has its beginning{titles}; "
        "MemorySearch finds the rest"
    )
    parts = [head] if head else []
    if lines:
        parts.append("Entries, newest first (their text: MemorySearch):\n" + "\n".join(lines))
    parts.append(f"[{note} (or read the file itself).]")
    return "\n\n".join(parts), _chunks(text), note


def _title(entry: str) -> str:
    """An entry's heading and the start of its first line of text, on one line."""
    lines = [line.strip() for line in entry.replace(ENTRY_MARK, "").splitlines() if line.strip()]
    if not lines:
        return "(empty entry)"
    heading = lines[0].lstrip("#").strip()
    return f"{heading}: {lines[1]}" if len(lines) > 1 else heading


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    kept = text[: limit - 1]
    at_line = kept.rfind("\n")
    return (kept[:at_line] if at_line > limit // 2 else kept).rstrip() + "…"


def _chunks(text: str) -> list[str]:
    """`text` in pieces of at most `CHUNK_CHARS`, cut at entries, then blank lines, then
    lines; each piece of an entry begins with the entry's heading (what it is about)."""
    preamble, entries = _split(text)
    pieces: list[str] = []
    for part in [preamble, *entries]:
        body = part.replace(ENTRY_MARK, "").strip()
        if not body:
            continue
        heading = body.splitlines()[0] if part.startswith(ENTRY_MARK) else ""
        pieces.extend(_pieces(body, heading))
    return pieces


def _pieces(body: str, heading: str) -> list[str]:
    room = CHUNK_CHARS - len(heading) - 1
    out: list[str] = []
    current = ""
    for block in _blocks(body, room):
        if current and len(current) + 2 + len(block) > room:
            out.append(current)
            current = ""
        current = f"{current}\n\n{block}" if current else block
    if current:
        out.append(current)
    return [out[0], *(f"{heading}\n{piece}" for piece in out[1:])] if heading else out


def _blocks(body: str, room: int) -> list[str]:
    """Paragraphs, a paragraph longer than `room` in lines, a line longer in slices."""
    blocks: list[str] = []
    for paragraph in body.split("\n\n"):
        if len(paragraph) <= room:
            blocks.append(paragraph)
            continue
        for line in paragraph.splitlines():
            blocks.extend(line[i : i + room] for i in range(0, max(len(line), 1), room))
    return [b for b in blocks if b.strip()]


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
