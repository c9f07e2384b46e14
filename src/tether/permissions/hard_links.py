"""Other names of a file: a hard link (or a bind-like alias) is the same file under another
path, so a rule denying `.env` must hold against `notes/envcopy` when both are one inode.
The default of `PermissionContext.other_names` (tests may pass a fake).

Bounded like the other disk probes: it lists directories, follows no symlink, reads no
content; past the bound the answer is "not known" (None) and the caller asks.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Final

from tether.slotted import Slotted

MAX_ENTRIES = 200_000
"""Directory entries the index of linked files looks at in all; past them, the names are not
known."""


Names = tuple[tuple[Path, ...], bool]
"""Other names found, and whether they are all of them (the rest lie outside the roots)."""


class _Index(Slotted):
    """The files with more than one link below some roots, by identity: made once (a walk),
    then each question is a lookup."""

    __slots__ = ("names",)
    names: Final[dict[tuple[int, int], tuple[str, ...]]]

    def __init__(self, names: dict[tuple[int, int], tuple[str, ...]]) -> None:
        self.names = names


_indexes: dict[tuple[Path, ...], _Index | None] = {}
_indexing = threading.Lock()


def other_names(real: Path, roots: tuple[Path, ...]) -> Names | None:
    """The other paths below `roots` (resolved directories) of the file `real` (resolved),
    and whether they are all its names; `((), True)` for a file with one link (or no regular
    file); None when the directories below the roots hold more than the bound.

    The linked files below the roots are indexed once per process (a virtualenv of hard links
    is thousands of them: each question is then a lookup, not a walk); a file the index does
    not hold under its own name is newer than the index, which is then made again, so a link
    made since to a file that was there is found."""
    try:
        info = os.lstat(real)
    except OSError:
        return (), True
    if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return (), True
    key = (info.st_dev, info.st_ino)
    with _indexing:
        if roots not in _indexes or _newer(_indexes[roots], key, real):
            _indexes[roots] = _index(roots)
        index = _indexes[roots]
    if index is None:
        return None
    found = tuple(
        Path(name)
        for name in index.names.get(key, ())
        if name != str(real) and _same_file(Path(name), info)
    )
    return found, len(found) >= info.st_nlink - 1


def _newer(index: _Index | None, key: tuple[int, int], real: Path) -> bool:
    """Whether `real` was made (or linked) after `index`: it does not hold it by that name."""
    return index is not None and str(real) not in index.names.get(key, ())


def _index(roots: tuple[Path, ...]) -> _Index | None:
    """Every regular file with more than one link below `roots`, by (device, inode); None
    past `MAX_ENTRIES` entries. Follows no symlink, reads no content, skips git's objects."""
    names: dict[tuple[int, int], list[str]] = {}
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
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not _objects(Path(entry.path)):
                        pending.append(Path(entry.path))
                    continue
                if not entry.is_file(follow_symlinks=False):
                    continue
                found = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if found.st_nlink > 1:
                names.setdefault((found.st_dev, found.st_ino), []).append(entry.path)
    return _Index({key: tuple(paths) for key, paths in names.items()})


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
