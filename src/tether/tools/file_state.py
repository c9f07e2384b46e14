"""What the session knows of the files it reads and changes: the version of each file the
model last saw, and the snapshots that make its changes revertible.

A change is refused when the file on disk is not the version the model saw (another program
or another session changed it): by content, compared with a digest of what was read, for
files up to `DIGEST_LIMIT_BYTES`; by identity (device, inode, size, modification time) for
larger ones. The content comparison catches what the times cannot: two writes of the same
size within one tick of the file system's clock, and a time set back with `touch -d`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Final

from tether.protocol import ToolError
from tether.slotted import Slotted
from tether.tools.snapshots import SnapshotStore

DIGEST_LIMIT_BYTES = 64 * 1024 * 1024
"""Files up to this size are compared by content; larger ones by identity only."""


def digest_of(content: bytes) -> bytes:
    return hashlib.sha256(content).digest()


class FileVersion(Slotted):
    """One version of a file as the session saw it."""

    __slots__ = ("device", "digest", "inode", "mtime_ns", "size")
    device: Final[int]
    inode: Final[int]
    size: Final[int]
    mtime_ns: Final[int]
    digest: Final[bytes | None]
    """sha256 of the content, for files up to DIGEST_LIMIT_BYTES."""

    def __init__(
        self, device: int, inode: int, size: int, mtime_ns: int, digest: bytes | None
    ) -> None:
        self.device = device
        self.inode = inode
        self.size = size
        self.mtime_ns = mtime_ns
        self.digest = digest

    @classmethod
    def of(cls, st: os.stat_result, digest: bytes | None) -> FileVersion:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, digest)

    def is_current(self, st: os.stat_result, content: bytes) -> bool:
        """Whether the file, now `st` holding `content`, is still this version."""
        if self.digest is not None:
            return len(content) == self.size and digest_of(content) == self.digest
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (
            self.device,
            self.inode,
            self.size,
            self.mtime_ns,
        )

    def why_not_current(self, shown: str, content: bytes) -> str:
        """What the model is told when the file, now holding `content`, is not this version."""
        return (
            f"{shown} changed on disk since it was last read (another program or session "
            "wrote it); Read it again before changing it."
        )


def version_of_open_file(fd: int) -> FileVersion:
    """The version of the regular file open as `fd`, its content digested when small enough
    (read through the descriptor, so it is the file that was opened, whatever its name
    points to by now)."""
    st = os.fstat(fd)
    if st.st_size > DIGEST_LIMIT_BYTES:
        return FileVersion.of(st, None)
    digest = hashlib.sha256()
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        digest.update(chunk)
        offset += len(chunk)
        if offset > DIGEST_LIMIT_BYTES:  # grew while read: compare by identity
            return FileVersion.of(st, None)
    return FileVersion(st.st_dev, st.st_ino, offset, st.st_mtime_ns, digest.digest())


class FileState(Slotted):
    """The versions the model saw, and per path a stack of contents before each change."""

    __slots__ = ("reads", "snapshots", "watchers")
    reads: dict[Path, FileVersion]
    snapshots: SnapshotStore
    watchers: list[Callable[[Path], None]]
    """Told of each file seen (read or written); a subagent's state shares its session's list,
    so that what is told of the session's files (its conditional skills) hears of its own."""

    def __init__(
        self,
        reads: dict[Path, FileVersion] | None = None,
        snapshots: SnapshotStore | None = None,
        watchers: list[Callable[[Path], None]] | None = None,
    ) -> None:
        self.reads = {} if reads is None else reads
        self.snapshots = SnapshotStore() if snapshots is None else snapshots
        self.watchers = [] if watchers is None else watchers

    def saw(self, path: Path, version: FileVersion) -> None:
        """The model has seen `path` as `version` (it read it, or wrote it)."""
        self.reads[path] = version
        for watch in self.watchers:
            watch(path)

    def forget(self, path: Path) -> None:
        self.reads.pop(path, None)

    def require_seen(self, path: Path, shown: str, st: os.stat_result, content: bytes) -> None:
        """Refuse to change a file the model has not read, or that is no longer the version it
        read (`st` and `content`: the file as it is now)."""
        version = self.reads.get(path)
        if version is None:
            raise ToolError(
                f"{shown} has not been read in this session; Read it before changing it."
            )
        if not version.is_current(st, content):
            raise ToolError(version.why_not_current(shown, content))
