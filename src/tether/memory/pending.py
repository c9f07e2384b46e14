"""Memories that could not be saved in the memory file (damaged, on a full disk, no embedder):
kept whole in a plain file beside it, one JSON object a line, and added to the memory file at
its next successful opening. What the model asked to keep is never lost to a broken store.

The file is appended under an exclusive lock (`flock`) and emptied under the same lock once
its memories are saved, so that an append by another process while they are added is never
lost. A line that is not a memory (cut by a crash) is kept aside, never dropped silently."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.file_locks import flock
from tether.memory.saving import MAX_ID, NeverGiven

if TYPE_CHECKING:
    from tether.memory.store import MemoryStore

PENDING_SUFFIX = ".pending.jsonl"


def pending_path(memory_file: Path) -> Path:
    """Where the memories not saved in `memory_file` wait: beside it."""
    return memory_file.with_name(memory_file.name + PENDING_SUFFIX)


@dataclass(frozen=True)
class Pending:
    text: str
    tags: tuple[str, ...]
    replaces: int | None = None
    """The memory its saver said it replaces: replaced when it is added."""


def keep(
    memory_file: Path, text: str, tags: tuple[str, ...], why: str, replaces: int | None = None
) -> Path:
    """Append the memory to the pending file of `memory_file`, flushed to disk; its path.
    `replaces`: the id of the memory it replaces once added. Raises OSError when even that
    cannot be written."""
    path = pending_path(memory_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    kept: dict[str, object] = {
        "text": text,
        "tags": list(tags),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "why": why,
    }
    if replaces is not None:
        kept["replaces"] = replaces
    line = json.dumps(kept, ensure_ascii=False)
    with _locked(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT) as fd:
        data = (line + "\n").encode()
        # A line cut by an earlier crash must not swallow this one.
        if os.fstat(fd).st_size and not _ends_with_newline(path):
            data = b"\n" + data
        os.write(fd, data)
        os.fsync(fd)
    return path


def read_pending(memory_file: Path) -> list[Pending]:
    """The memories waiting beside `memory_file`, oldest first (a line that is not one is
    skipped: `add_pending` keeps it aside). Raises OSError when the file cannot be read."""
    try:
        with _locked(pending_path(memory_file), os.O_RDONLY) as fd:
            raw = _read_all(fd)
    except FileNotFoundError:
        return []
    return [memory for line in raw.splitlines() if (memory := _parsed(line)) is not None]


_WORD = re.compile(r"\w+")


def matching_words(memories: list[Pending], query: str) -> list[Pending]:
    """The memories sharing a word with `query` (case aside), the most words shared first:
    memories kept aside are not indexed, and there are few of them."""
    wanted = {word.lower() for word in _WORD.findall(query)}
    scored: list[tuple[int, int, Pending]] = []
    seen: set[str] = set()
    for order, memory in reversed(list(enumerate(memories))):
        if memory.text in seen:  # kept twice: one is enough
            continue
        seen.add(memory.text)
        words = {word.lower() for word in _WORD.findall(" ".join((memory.text, *memory.tags)))}
        shared = len(wanted & words)
        if shared:
            scored.append((-shared, -order, memory))  # among equals, the newest first
    return [memory for _, _, memory in sorted(scored, key=lambda s: s[:2])]


def add_pending(store: MemoryStore) -> int:
    """Save the memories waiting beside `store`'s file in it (each once: one already there is
    not saved again), then empty the pending file; how many were added. Raises what saving
    raises (`MemoryFileError`), leaving the file as it was."""
    path = pending_path(store.path)
    if not path.exists():
        return 0
    added = 0
    with _locked(path, os.O_RDWR) as fd:
        raw = _read_all(fd)
        if not raw.strip():
            return 0
        unreadable: list[bytes] = []
        for line in raw.splitlines():
            memory = _parsed(line)
            if memory is None:
                if line.strip():
                    unreadable.append(line)
                continue
            if memory.replaces is not None:  # the same text there still removes the named
                try:
                    saved = store.save(memory.text, memory.tags, replaces=memory.replaces)
                except NeverGiven:  # no memory it can have meant: added beside the others
                    saved = store.save(memory.text, memory.tags)
                added += not saved.already
            elif not store.has(memory.text):
                store.save(memory.text, memory.tags)
                added += 1
        if unreadable:
            aside = path.with_name(path.name + ".unreadable")
            with open(aside, "ab") as f:
                f.write(b"\n".join(unreadable) + b"\n")
                f.flush()
                os.fsync(f.fileno())
        os.ftruncate(fd, 0)
        os.fsync(fd)
    return added


def _parsed(line: bytes) -> Pending | None:
    try:
        value: Any = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(value, dict):
        return None
    text = value.get("text")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    tags = value.get("tags", [])  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    replaces = value.get("replaces")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(text, str) or not text.strip() or not isinstance(tags, list):
        return None
    if type(replaces) is not int or not 1 <= replaces <= MAX_ID:
        replaces = None  # none kept, or not an id: the text is added beside the others
    return Pending(text, tuple(str(tag) for tag in tags), replaces)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]


@contextlib.contextmanager
def _locked(path: Path, flags: int) -> Generator[int]:
    fd = os.open(path, flags | os.O_CLOEXEC, 0o600)
    try:
        flock(fd, fcntl.LOCK_EX, what=f"the changes to {path}")
        yield fd
    finally:
        os.close(fd)  # the lock goes with it


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks: list[bytes] = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) == b"\n"
