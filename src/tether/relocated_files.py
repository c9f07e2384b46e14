"""Settings files read in one place and applied in another: a task worktree's session reads
its main workspace's files (its local ones, which git does not carry, too) as if they were in
the worktree. What is relative to such a file is relative to its place in the worktree; what
names it for people names the file read."""

from __future__ import annotations

from pathlib import Path


class RelocatedFile(type(Path())):  # the concrete class (PosixPath): a Path to subclass
    """A settings file's place in a worktree of the workspace it was read from: what is
    relative to the file is relative to this place, but the file is `read_from` (what
    messages name: `file_name`). Paths made from it (its parent, a join) have no `read_from`:
    they are places in the worktree only."""

    __slots__ = ("read_from",)
    read_from: Path


def file_name(path: Path) -> Path:
    """The file a settings layer's `path` was read from, for messages: a relocated layer's
    own file (`RelocatedFile.read_from`), not its place in the worktree, which may not exist."""
    read_from: Path | None = getattr(path, "read_from", None)
    return read_from if read_from is not None else path
