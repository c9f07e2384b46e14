"""What a decision asks of the disk besides resolving paths and listing a glob's directory:
the defaults of `PermissionContext.find_repository` and `.list_tree` (tests pass fakes).

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


def repository_git_dir(directory: Path) -> Path | None:
    """The git directory git finds from `directory` (resolved), as git's discovery does, or
    None when it finds none. Bounded: a few `stat`s per level, one small read per `.git`
    file (paths as strings: this runs for every git command a decision judges)."""
    level = directory.as_posix()
    while True:
        dot = f"{level.rstrip('/')}/.git"
        try:
            mode = os.lstat(dot).st_mode
        except (OSError, ValueError):
            mode = None
        if mode is not None and stat.S_ISLNK(mode):
            mode = _mode(dot)  # git follows a `.git` link; a dangling one is a file it reads
            if mode is None:
                mode = stat.S_IFREG
        if mode is not None and stat.S_ISDIR(mode):
            if is_git_directory(Path(dot)):
                return Path(os.path.realpath(dot))
        elif mode is not None:
            named = _gitdir_file(Path(dot))
            if named is not None:
                return named
        if is_git_directory(Path(level)):
            return Path(level)
        parent = os.path.dirname(level)
        if parent == level:
            return None
        level = parent


def _mode(path: str) -> int | None:
    try:
        return os.stat(path).st_mode
    except (OSError, ValueError):
        return None


def _gitdir_file(dot: Path) -> Path | None:
    """The directory a `gitdir: PATH` file names, resolved (a linked work tree, a
    submodule)."""
    try:
        with open(dot, "rb") as file:
            text = file.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    named = Path(text.removeprefix("gitdir:").strip())
    return Path(os.path.realpath(named if named.is_absolute() else dot.parent / named))


def is_git_directory(level: Path) -> bool:
    """git's own test (setup.c, is_git_directory): a HEAD, and objects and refs here or in the
    directory `commondir` names."""
    top = level.as_posix().rstrip("/")
    if not _is(f"{top}/HEAD", stat.S_ISREG):
        return False
    if _is(f"{top}/commondir", stat.S_ISREG):
        return True
    return _is(f"{top}/objects", stat.S_ISDIR) and _is(f"{top}/refs", stat.S_ISDIR)


def _is(path: str, kind: Callable[[int], bool]) -> bool:
    mode = _mode(path)
    return mode is not None and kind(mode)


def names_below_unfollowed(path: Path) -> tuple[str, ...] | None:
    """What a recursive read that does not follow symlinks below the top reads (`grep -r`,
    `rg`): `names_below` with every symlink below left out (neither read nor entered)."""
    return names_below(path, skip_links=True)


def names_below_unentered(path: Path) -> tuple[str, ...] | None:
    """What `find` without `-L` walks: `names_below` with each symlink below named but not
    entered (whoever is handed the name opens it, and is judged by where it leads)."""
    return names_below(path, name_links=True)


def names_below(
    path: Path, *, skip_links: bool = False, name_links: bool = False
) -> tuple[str, ...] | None:
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
                    link = entry.is_symlink()
                    if link and skip_links:
                        continue
                    if len(found) >= MAX_TREE or (link and not name_links):
                        return None
                    name = f"{below}/{entry.name}" if below else entry.name
                    found.append(name)
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(name)
        except OSError:
            return None
    return tuple(found)
