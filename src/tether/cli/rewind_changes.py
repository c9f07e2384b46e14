"""What each message of the rewind list changed in the files, as Claude Code's list shows it:
`notes.txt +1 -1` (lines added and removed by that message's turn), "No code changes", and
"Code changes unknown" where a Bash command ran in it (what a command changes is not known)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tether.cli.file_history import FileHistory
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    from tether.cli.repl_rewind import Checkpoint

NO_CHANGES = "No code changes"
UNKNOWN = "Code changes unknown"


def change_lines(taken: Sequence[Checkpoint], history: FileHistory, cwd: Path) -> list[str]:
    """For each message of `taken` (oldest first), what its turn changed in the files; "" for
    one with no checkpoint of the files (only its conversation can go back)."""
    try:
        changed = history.changed()
    except OSError:
        changed = {}
    lines: list[str] = []
    for index, checkpoint in enumerate(taken):
        if not checkpoint.files:
            lines.append("")
            continue
        parts: list[str] = []
        for name, blob in sorted(changed.get(checkpoint.uuid, {}).items()):
            later = (changed.get(c.uuid, {}) for c in taken[index + 1 :] if c.files)
            after = next((files[name] for files in later if name in files), _NOW)
            counted = _counted(history, Path(name), blob, after)
            if counted:
                parts.append(f"{terminal_safe(_shorten(Path(name), cwd))} {counted}")
        said = ", ".join(parts)
        if checkpoint.bash:
            said = f"{said} · {UNKNOWN}" if said else UNKNOWN
        lines.append(said or NO_CHANGES)
    return lines


_NOW = "now"
"""The file as it is on disk (no later message changed it)."""


def _counted(history: FileHistory, path: Path, before: str | None, after: str | None) -> str:
    """`+added -removed` lines from the blob `before` to `after` (None: no file; `_NOW`: the
    file on disk); "" when they are the same."""
    try:
        old = history.blob(before) if before is not None else b""
        if after == _NOW:
            new = path.read_bytes() if path.exists() else b""
        else:
            new = history.blob(after) if after is not None else b""
    except OSError:
        return "?"
    if old == new:
        return ""
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    counts = [f"+{added}" if added else "", f"-{removed}" if removed else ""]
    return " ".join(c for c in counts if c) or "+0 -0"


def _shorten(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)
