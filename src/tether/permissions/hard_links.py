"""Other names of a file: a hard link (or a bind-like alias) is the same file under another
path, so a rule denying `.env` must hold against `notes/envcopy` when both are one inode.
The default of `PermissionContext.other_names` (tests may pass a fake).

Bounded like the other disk probes: it lists directories (their entries carry the inode
number, no `stat` each), follows no symlink, reads no content; past the bound the answer is
"not known" (None) and the caller asks.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_ENTRIES = 20_000
"""Directory entries `other_names` looks at in all; past them, the names are not known."""


Names = tuple[tuple[Path, ...], bool]
"""Other names found, and whether they are all of them (the rest lie outside the roots)."""


def other_names(real: Path, roots: tuple[Path, ...]) -> Names | None:
    """The other paths below `roots` (resolved directories) of the file `real` (resolved),
    and whether they are all its names; `((), True)` for a file with one link (or no regular
    file); None when the directories below the roots were more than the bound."""
    try:
        info = os.lstat(real)
    except OSError:
        return (), True
    if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return (), True
    wanted = info.st_nlink - 1
    found: list[Path] = []
    budget = MAX_ENTRIES
    pending = _outermost(roots)
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError:
            continue
        budget -= len(listed)
        if budget < 0:
            return None
        for entry in listed:
            path = Path(entry.path)
            if entry.inode() == info.st_ino and path != real:
                if _same_file(path, info):
                    found.append(path)
                    if len(found) >= wanted:
                        return tuple(found), True
            elif entry.is_dir(follow_symlinks=False) and not _objects(path):
                pending.append(path)
    return tuple(found), False


def _same_file(path: Path, info: os.stat_result) -> bool:
    try:
        other = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(other.st_mode) and (other.st_dev, other.st_ino) == (
        info.st_dev,
        info.st_ino,
    )


def _objects(path: Path) -> bool:
    """git's object store: content git shows anyway, and most of a repository's files."""
    return path.name == "objects" and path.parent.name == ".git"


def _outermost(roots: tuple[Path, ...]) -> list[Path]:
    """The roots, each once, none below another (a directory is listed once)."""
    kept: list[Path] = []
    for root in sorted(set(roots), key=lambda p: len(p.parts)):
        if not any(root.is_relative_to(k) for k in kept):
            kept.append(root)
    return kept


def linked_files(directory: Path, below: tuple[str, ...]) -> tuple[Path, ...]:
    """The regular files among `below` (paths relative to the resolved `directory`, as
    `names_below` lists them) that have more than one link: other names a recursive read
    of the directory reaches too."""
    found: list[Path] = []
    for name in below:
        path = directory / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            found.append(path)
    return tuple(found)
