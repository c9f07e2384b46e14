"""Files made in the workspace during a turn (`headway.Headway`): a build's objects, a shard
job's outputs, which no call names; and whether a file a call names was there before.

`sh build.sh 17` compiles unit 17 and prints `[17/150] CC src/unit_17.c ok`: its output is the
last one's with the number it was given, and the object it wrote is named nowhere in the call,
so a build of 150 units looked like a counter echoed back and was stopped at the 31st. What it
left in the workspace is the work: a command asked anew by its numbers (`headway.Headway`'s
rule) that made a file the workspace did not hold is headway.

Whether a file is the turn's own is told by the names its directory held, not by the file's
times: an edit in place (`sed -i`, which renames a new file over the old one, a codemod script
writing the file back) renews a file's status-change time as making it does, and a codemod over
150 same-shaped modules was read as 150 files made holding what another held, and stopped.

Directories are looked at by their modification time (a file made or removed changes its
directory's): only one that changed is listed again, so a look costs a `stat` per directory.
Every depth is looked at, hidden directories too (`.build/`, CMake's
`build/CMakeFiles/t.dir/src/`), the version control's own store aside, up to `SCANNED_DIRS`.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections import deque

SCANNED_DIRS = 2048
"""How many directories a look visits at most, the shallowest first (a big tree is looked at
in its upper part)."""

UNSCANNED = frozenset({".git", ".hg", ".svn", ".jj"})
"""Directories never looked into: a version control's store, which changes with its commands
and is no file of the workspace."""

COMPARED_FILES = 32
"""How many of the files a look found made are compared with what others held (a step that
made more made something new among its first, or nothing)."""

COMPARED_BYTES = 1 << 20
"""Made files up to this size are compared byte for byte with the others; a larger one is new."""

_Listing = tuple[int, frozenset[str], tuple[str, ...]]
"""A directory as last listed: its modification time, its files' names, its subdirectories."""


class MadeFiles:
    """What the working directory's tree held at the last look, directory by directory, and
    the files that appeared in it since the turn's first look."""

    __slots__ = ("_appeared", "_dirs", "_held", "_root", "_started")

    def __init__(self) -> None:
        self._started = time.time_ns()
        """When the turn began: a file outside the looks changed since is taken for its own."""
        self._root: str | None = None
        self._dirs: dict[str, _Listing] = {}
        self._appeared: set[str] = set()
        """The files that were not in their directory at the turn's first look of it."""
        self._held: set[bytes] = set()
        """The digests of what the files made in the turn held when found."""

    def holding_new(self, made: list[str]) -> bool:
        """Whether one of the files `made` (found by `new_files`) holds what no file made in
        the turn held: an empty file, or a copy of another (`touch junk_N.txt`, `cp seed.txt
        copy_N.txt`, `echo checking > check_N.log`), is no work, whatever its name."""
        new = False
        for path in made[:COMPARED_FILES]:
            digest = _digest(path)
            if digest is not None and digest not in self._held:
                self._held.add(digest)
                new = True
        return new

    def new_files(self, root: str) -> list[str]:
        """The files under `root` that were not there at the last look; none at the first
        look of `root`."""
        first = root != self._root
        if first:
            self._root = root
            self._dirs = {}
        made: list[str] = []
        looked: dict[str, _Listing] = {}
        queue = deque([root])
        while queue and len(looked) < SCANNED_DIRS:
            path = queue.popleft()
            try:
                mtime = os.stat(path).st_mtime_ns
            except (OSError, ValueError):
                continue
            known = self._dirs.get(path)
            if known is not None and known[0] == mtime:
                entry = known
            else:
                entry = (mtime, *_listed(path))
                if known is not None or not first:  # a directory made since counts whole
                    held = known[1] if known is not None else frozenset[str]()
                    made.extend(os.path.join(path, name) for name in sorted(entry[1] - held))
            looked[path] = entry
            queue.extend(os.path.join(path, d) for d in entry[2])
        self._dirs = looked
        self._appeared.update(made)
        return made

    def made_in_turn(self, path: str) -> bool:
        """Whether `path` appeared since the turn's first look of its directory; a file no
        look listed (outside the tree, past `SCANNED_DIRS`) by its status-change time."""
        if path in self._appeared:
            return True
        listed = self._dirs.get(os.path.dirname(path))
        if listed is not None and os.path.basename(path) in listed[1]:
            return False  # there at the first look: an edit in place renews its times only
        try:
            return os.stat(path).st_ctime_ns >= self._started
        except (OSError, ValueError):
            return False


def _digest(path: str) -> bytes | None:
    """What a made file holds, as compared with the others (its size and mtime when it is
    large); None when it is empty or cannot be read."""
    try:
        st = os.stat(path)
        if st.st_size == 0 or not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > COMPARED_BYTES:
            return f"{st.st_size}:{st.st_mtime_ns}".encode()
        with open(path, "rb") as f:
            return hashlib.blake2b(f.read(COMPARED_BYTES), digest_size=16).digest()
    except (OSError, ValueError):
        return None


def _listed(path: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The names of a directory's regular files, and its subdirectories (a version control's
    store aside, links not followed)."""
    files: list[str] = []
    dirs: list[str] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISREG(mode):
                    files.append(entry.name)
                elif stat.S_ISDIR(mode) and entry.name not in UNSCANNED:
                    dirs.append(entry.name)
    except (OSError, ValueError):
        pass
    return frozenset(files), tuple(sorted(dirs))
