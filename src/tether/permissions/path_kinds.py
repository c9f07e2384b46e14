"""Whether a word a command names is a file or a directory on disk now, for commands whose
work depends on it: `git checkout -- NAME` discards one file's edits (`rm -f`) or a whole
tree's (`rm -r -f`), and the name alone does not say which (`.github` and `foo.d` are
directories, `Makefile` a file: git_discarders)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from tether.permissions.access import FileAccess
from tether.permissions.paths import is_below
from tether.permissions.shell_places import ShellPlaces

PathKind = Literal["file", "directory"]
KindOf = Callable[[str], PathKind | None]
"""What a word names on disk; None when not known (a pattern, a word known only as the
command runs, a path outside the workspace or missing, a disk the line may change first)."""


def unknown_kind(word: str) -> PathKind | None:
    """The kind of no word: a command judged without looking at the disk."""
    return None


def kind_on_disk(places: ShellPlaces, files: FileAccess, word: str) -> PathKind | None:
    """The kind of what `word` names from every directory the command may run in, when they
    agree and each is in the workspace. Only while the disk is as it is now (nothing but a
    `cd` ran before in the line: `ShellPlaces.settled`); a `..` is left unknown, as it may
    climb out of a symlink. A symlink is a file: git and rm act on the link itself."""
    if not places.settled or ".." in word.split("/"):
        return None
    kinds: set[PathKind] = set()
    for target in places.targets(word):
        if not isinstance(target, Path):
            return None
        real = files.real(target)
        if real is None or not is_below(real, files.ctx.write_roots):
            return None
        try:
            mode = os.lstat(target).st_mode
        except (OSError, ValueError):
            return None
        if stat.S_ISDIR(mode):
            kinds.add("directory")
        elif stat.S_ISREG(mode) or stat.S_ISLNK(mode):
            kinds.add("file")
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None
