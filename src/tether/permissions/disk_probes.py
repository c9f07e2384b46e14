"""What a decision asks of the disk besides resolving paths and listing a glob's directory:
the defaults of `PermissionContext.find_bare_repository` and `.list_tree` (tests pass fakes).

Both are bounded, follow no symlink and read no file's content, so that a decision stays
cheap whatever the workspace holds; where the bound is met the answer is "not known" and the
engine judges as it would without looking.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

MAX_TREE = 2_000
"""Entries below a directory `names_below` looks at; past them, what it holds is not known."""


def bare_repository_above(directory: Path) -> Path | None:
    """The repository git finds from `directory` (resolved) when it is a bare one, a directory
    holding `HEAD` and `objects`/`refs` (or `commondir`) under any name: its config and hooks
    are plain files any write may have made (`core.fsmonitor` runs at `git status`). None
    when git finds a work tree's `.git` first (protected at any depth, defaults.py), when the
    directory is inside a `.git` directory, or when there is no repository."""
    for level in (directory, *directory.parents):
        if ".git" in level.parts:
            return None
        if os.path.lexists(level / ".git"):
            return None
        if is_git_directory(level):
            return level
    return None


def is_git_directory(level: Path) -> bool:
    """git's own test (setup.c, is_git_directory): a HEAD, and objects and refs here or in the
    directory `commondir` names."""
    if not _is(level / "HEAD", stat.S_ISREG):
        return False
    if _is(level / "commondir", stat.S_ISREG):
        return True
    return _is(level / "objects", stat.S_ISDIR) and _is(level / "refs", stat.S_ISDIR)


def _is(path: Path, kind: Callable[[int], bool]) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return kind(mode)


def names_below(path: Path) -> tuple[str, ...] | None:
    """Every path below `path` (resolved), relative to it, directories included: `()` for a
    regular file or an empty directory. None when not known: more than `MAX_TREE` entries, a
    symlink among them (it may lead anywhere: what a program that follows it reads is not
    below), something that cannot be listed, or `path` itself neither a file nor a
    directory."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    if stat.S_ISREG(info.st_mode):
        return ()
    if not stat.S_ISDIR(info.st_mode):
        return None
    found: list[str] = []
    pending = [""]
    while pending:
        below = pending.pop()
        try:
            with os.scandir(path / below if below else path) as entries:
                for entry in entries:
                    if len(found) >= MAX_TREE or entry.is_symlink():
                        return None
                    name = f"{below}/{entry.name}" if below else entry.name
                    found.append(name)
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(name)
        except OSError:
            return None
    return tuple(found)
