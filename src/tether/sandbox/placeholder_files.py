"""A placeholder on disk: how one is known again (its record, its mark) and removed by
descriptor, only while it is still exactly what tether made.

Removal is by descriptor: the directory holding the placeholder is reached from `/` without
following a symlink and the entry is removed (`unlinkat`) in that very directory, so a command
that swapped a directory on the way for a link cannot make tether remove something elsewhere.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path
from typing import Final

from tether import bounded_json
from tether.slotted import Slotted

MARK = "user.tether-sandbox-placeholder"
"""Extended attribute set on each placeholder, so that another tether process can tell one
from a real file the user made (where the file system keeps user attributes)."""

NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
REACH = os.O_PATH | NOFOLLOW
"""An existing entry, opened as itself (a symlink too, which `fstat` then shows)."""


class Made(Slotted):
    """One placeholder as made: where, what (a directory, a file and its content, or a socket
    file: a work tree's file mask, `Protected.file_mask`) and its identity (device, inode), by
    which it is told from whatever later takes its name."""

    __slots__ = ("content", "directory", "identity", "path", "socket")
    path: Final[Path]
    directory: Final[bool]
    content: Final[bytes]
    identity: Final[tuple[int, int]]
    socket: Final[bool]

    def __init__(
        self,
        path: Path,
        directory: bool,
        content: bytes,
        identity: tuple[int, int],
        *,
        socket: bool = False,
    ) -> None:
        self.path = path
        self.directory = directory
        self.content = content
        self.identity = identity
        self.socket = socket

    def line(self) -> bytes:
        """Its journal line."""
        record = {
            "path": os.fsdecode(self.path),
            "directory": self.directory,
            "content": self.content.hex(),
            "identity": list(self.identity),
            "socket": self.socket,
        }
        return (json.dumps(record) + "\n").encode()

    @staticmethod
    def read(line: bytes) -> Made | None:
        """A journal line read back; None for a line cut short by a kill (nothing was made
        after it)."""
        try:
            record = bounded_json.loads(line)
            dev, ino = record["identity"]
            return Made(
                Path(record["path"]),
                bool(record["directory"]),
                bytes.fromhex(record["content"]),
                (int(dev), int(ino)),
                socket=record.get("socket") is True,
            )
        except (ValueError, KeyError, TypeError):
            return None


def marked(path: Path) -> Made | None:
    """A placeholder without a journal entry (`path`: a protected path), known by its mark:
    only an empty directory; or a socket file, which can carry no mark (the kernel keeps user
    attributes on files and directories only) but is never a configuration file of the user's
    (a work tree's file mask, `Protected.file_mask`)."""
    parent = reach_directory(path.parent)
    if parent is None:
        return None
    try:
        info = os.stat(path.name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISSOCK(info.st_mode):
            return Made(path, False, b"", (info.st_dev, info.st_ino), socket=True)
        fd = os.open(path.name, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW, dir_fd=parent)
    except OSError:
        return None
    finally:
        os.close(parent)
    try:
        if os.getxattr(fd, MARK) != b"1":
            return None
        info = os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return Made(path, True, b"", (info.st_dev, info.st_ino))


def reach_directory(path: Path) -> int | None:
    """An `O_PATH` descriptor of the directory `path`, reached from `/` without following a
    symlink; None if a component is missing, a link or not a directory."""
    if not path.is_absolute() or any(p in (".", "..") for p in path.parts):
        return None
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    for name in path.parts[1:]:
        try:
            child = os.open(name, REACH, dir_fd=fd)
        except OSError:
            child = -1
        finally:
            os.close(fd)
        if child < 0:
            return None
        if not stat.S_ISDIR(os.fstat(child).st_mode):
            os.close(child)
            return None
        fd = child
    return fd


def remove_if_as_made(made: Made) -> None:
    """Remove a placeholder that is still as made (same inode, still empty or with the content
    it was given), by descriptor: reached without a link, removed in its very directory."""
    parent = reach_directory(made.path.parent)
    if parent is None:
        return
    name = made.path.name
    try:
        if _still_as_made(made, parent):
            (os.rmdir if made.directory else os.unlink)(name, dir_fd=parent)
    except OSError:
        pass
    finally:
        os.close(parent)


def _still_as_made(made: Made, parent: int) -> bool:
    name = made.path.name
    info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if (info.st_dev, info.st_ino) != made.identity:
        return False
    if made.directory:
        if not stat.S_ISDIR(info.st_mode):
            return False
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW, dir_fd=parent)
        try:
            with os.scandir(fd) as entries:
                return not any(entries)
        finally:
            os.close(fd)
    if made.socket:
        return stat.S_ISSOCK(info.st_mode)
    if not stat.S_ISREG(info.st_mode) or info.st_size != len(made.content):
        return False
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW, dir_fd=parent)
    try:
        return os.fstat(fd).st_ino == info.st_ino and os.read(fd, len(made.content) + 1) == (
            made.content
        )
    finally:
        os.close(fd)


def make_socket_file(name: str, parent: int) -> int:
    """A unix socket file named `name` in the directory `parent`, bound through the
    descriptor's name in /proc (short whatever the directory's path, which `bind` limits to
    107 bytes) and closed at once: the file stays, a socket nothing listens on. Its `O_PATH`
    descriptor."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bound:
        bound.bind(f"/proc/self/fd/{parent}/{name}")
    return os.open(name, REACH, dir_fd=parent)
