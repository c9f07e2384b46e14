"""What the model is told about the start-up files a sweep moved aside: a few paths, counts by
directory and, past a few, where the whole list is (a command can make 20,000 of them; each one
named would flood the model's context)."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import Counter
from pathlib import Path

NAMED = 5
"""Paths (and directories) named in the note at most; the rest counted."""
_LIST_NAME = "tether-moved-aside"
_numbers = itertools.count(1)


def moved_note(moved: list[str], list_dir: Path | None) -> str:
    """The note for `moved` (absolute paths, each now `<path>.tether-disabled...`); the whole
    list written to a file in `list_dir` (the session's TMPDIR) when there are more than
    `NAMED`."""
    head = (
        "files that start programs or grant permissions later outside the sandbox (settings, "
        "hooks, MCP servers, skills, editor tasks) were made or changed by the command and "
        "moved aside (each renamed to <name>.tether-disabled; the user can move one back "
        "outside the sandbox)"
    )
    if len(moved) <= NAMED:
        return f"{head}: {', '.join(moved)}"
    by_directory = Counter(os.path.dirname(path) for path in moved)
    places = [f"{d} ({n})" for d, n in by_directory.most_common(NAMED)]
    if len(by_directory) > NAMED:
        places.append(f"{len(by_directory) - NAMED} more directories")
    note = (
        f"{head}: {len(moved)} files, by directory: {', '.join(places)}; "
        f"the first {NAMED}: {', '.join(moved[:NAMED])}"
    )
    listed = _write_list(moved, list_dir)
    return note + (f"; the whole list is in {listed}" if listed else "")


def _write_list(moved: list[str], list_dir: Path | None) -> Path | None:
    if list_dir is None:
        return None
    with contextlib.suppress(OSError):
        target = list_dir / f"{_LIST_NAME}-{os.getpid()}-{next(_numbers)}.txt"
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join(f"{path}\n" for path in moved))
        return target
    return None
