"""Reaching paths without following symlinks: what the sandbox mounts in places a command can
write, and what tether reads there.

Between two commands, a sandboxed one can turn any directory it may write into a symlink:
`ln -s ~/.ssh .git/worktrees`. A bind mount of a path through that link would mount the link's
target (writable, or read-only on top of the cover that hid it), and a placeholder made through
it would land outside. So every path the sandbox binds is reached here one component at a time
from `/`, with `O_PATH | O_NOFOLLOW` relative to the directory before it: a symlink anywhere on
the way, or a component that is not a directory, and the path is not reached. What is reached is
bound by its descriptor (`--bind-fd`), and bwrap checks after the mount that what is mounted at
the destination is that very file, so a swap between this walk and the mount fails the command
instead of binding something else. Every path handed in is resolved when the session starts,
so only a symlink made since (by a command) stops a walk.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final, Literal

from tether.slotted import Slotted

Blocked = Literal["missing", "blocked"]
"""Why a path was not reached: a component does not exist (everything before it is a real
directory, so a placeholder may be made there), or one is a symlink, not a directory, or not
openable."""


class Found(Slotted):
    """A path reached without following a symlink: an `O_PATH` descriptor of it."""

    __slots__ = ("directory", "fd")
    fd: Final[int]
    directory: Final[bool]

    def __init__(self, fd: int, directory: bool) -> None:
        self.fd = fd
        self.directory = directory


class Descriptors:
    """The descriptors of the paths reached for one command line, each opened once; those
    `used` are handed to bwrap, the others closed by `release`."""

    def __init__(self) -> None:
        self._reached: dict[str, Found | Blocked] = {}
        self._missing: set[str] = set()
        self.used: set[int] = set()

    def reach(self, path: Path) -> Found | Blocked:
        """`path` (absolute) reached from `/` without following a symlink in any component."""
        key = os.fspath(path)
        found = self._reached.get(key)
        if found is None:
            found = self._reached[key] = self._open(path)
            if found == "missing":
                self._missing.add(key)
        return found

    def use(self, found: Found) -> int:
        self.used.add(found.fd)
        return found.fd

    def forget_missing(self) -> None:
        """Placeholders have been made: look again at what was missing."""
        for key in self._missing:
            self._reached.pop(key, None)
        self._missing.clear()

    def release(self) -> tuple[int, ...]:
        """Close what is not used; the used descriptors, for the command to inherit."""
        for found in self._reached.values():
            if isinstance(found, Found) and found.fd not in self.used:
                os.close(found.fd)
        self._reached = {}
        self._missing = set()
        return tuple(sorted(self.used))

    def close_all(self) -> None:
        self.used = set()
        self.release()

    def _open(self, path: Path) -> Found | Blocked:
        if not path.is_absolute() or any(part in (".", "..") for part in path.parts):
            return "blocked"
        if path == path.parent:
            return _found(os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
        parent = self.reach(path.parent)
        if not isinstance(parent, Found):
            return parent
        if not parent.directory:
            return "blocked"
        try:
            fd = os.open(path.name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent.fd)
        except FileNotFoundError:
            return "missing"
        except (OSError, ValueError):  # ValueError: a NUL in a name read from a file
            return "blocked"
        if stat.S_ISLNK(os.fstat(fd).st_mode):
            os.close(fd)
            return "blocked"
        return _found(fd)


def _found(fd: int) -> Found:
    return Found(fd, stat.S_ISDIR(os.fstat(fd).st_mode))


def read_regular_file(path: Path, limit: int) -> bytes | None:
    """The first `limit` bytes of `path` if it is a regular file (reached through symlinks);
    None for anything else. Never opens a fifo (which would block) or a device (whose opening
    can act: a watchdog, a terminal becoming tether's): the path is opened with `O_PATH`,
    which opens nothing, and reopened for reading only once it is known to be a regular file."""
    try:
        handle = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        fd = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    finally:
        os.close(handle)
    try:
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def fresh_directory(path: Path) -> None:
    """`path` as a real directory of ours: what a command put in its place (a symlink, a
    file) is removed first. For the scratch directory's own subdirectories (TMPDIR)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        path.mkdir(parents=True)
        return
    if stat.S_ISDIR(info.st_mode):
        return
    os.unlink(path)  # a symlink itself, never its target
    path.mkdir()


def open_directory(path: Path) -> int | None:
    """An `O_PATH` descriptor of the directory `path`, reached from `/` without following a
    symlink, or None. Entries made or removed by name relative to it (`os.mkdir(name,
    dir_fd=fd)`, `os.unlink(name, dir_fd=fd)`) cannot land anywhere else, whatever a command
    does to the path meanwhile: for placeholders."""
    walk = Descriptors()
    found = walk.reach(path)
    if not isinstance(found, Found) or not found.directory:
        walk.close_all()
        return None
    walk.use(found)
    walk.release()
    return found.fd
