"""Files a shell command made in the workspace without naming them (`headway.Headway`): a
build's objects, a shard job's outputs.

`sh build.sh 17` compiles unit 17 and prints `[17/150] CC src/unit_17.c ok`: its output is the
last one's with the number it was given, and the object it wrote is named nowhere in the call,
so a build of 150 units looked like a counter echoed back and was stopped at the 31st. What it
left in the workspace is the work: a command asked anew by its numbers (`headway.Headway`'s
rule) that made a file the workspace did not hold is headway. The same command asked again
making files (`touch junk_$RANDOM`, `mktemp`) is not asked anew, and stays no headway.

Directories are looked at by their modification time (a file made or removed changes its
directory's): only one that changed is listed again, so a look costs a `stat` per directory.
"""

from __future__ import annotations

import os
import stat

SCANNED_DEPTH = 3
"""How many levels below the working directory are looked at (`obj/`, `build/obj/x/`)."""

SCANNED_DIRS = 256
"""How many directories a look visits at most (a big tree is looked at in its first part)."""


class MadeFiles:
    """What the working directory's tree held at the last look, directory by directory."""

    __slots__ = ("_dirs", "_root")

    def __init__(self) -> None:
        self._root: str | None = None
        self._dirs: dict[str, tuple[int, frozenset[str], tuple[str, ...]]] = {}
        """Per directory: its modification time, its files' names and its subdirectories."""

    def new_files(self, root: str) -> list[str]:
        """The files under `root` (hidden ones aside) that were not there at the last look;
        none at the first look of `root`."""
        first = root != self._root
        if first:
            self._root = root
            self._dirs = {}
        made: list[str] = []
        looked: dict[str, tuple[int, frozenset[str], tuple[str, ...]]] = {}
        queue = [(root, 0)]
        while queue and len(looked) < SCANNED_DIRS:
            path, depth = queue.pop(0)
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
            if depth < SCANNED_DEPTH:
                queue.extend((os.path.join(path, d), depth + 1) for d in entry[2])
        self._dirs = looked
        return made


def _listed(path: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The names of a directory's regular files, and its subdirectories (hidden ones aside,
    links not followed)."""
    files: list[str] = []
    dirs: list[str] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISREG(mode):
                    files.append(entry.name)
                elif stat.S_ISDIR(mode):
                    dirs.append(entry.name)
    except (OSError, ValueError):
        pass
    return frozenset(files), tuple(sorted(dirs))
