"""Setuid and setgid files under the writable roots: read-only in the sandbox, as root.

As root the command's uid is root's outside. Writing into a setuid file with `write`,
`truncate`, `fallocate` or `copy_file_range` clears its bit (the command has no `CAP_FSETID`),
but a write through a shared memory mapping (`mmap(MAP_SHARED)`) changes the contents and
leaves the bit: a program the command wrote would then run as root outside. seccomp cannot
help (it cannot see which file an `mmap` maps, and `mprotect` adds write access later), and
mapping the command to an unprivileged uid outside would make a root-owned workspace
unwritable (`README.md`). So every regular file with a set-id bit under the writable roots is
bound read-only: it cannot be opened for writing at all, nor renamed, removed or linked away
(a mount point; a link across mounts fails).

They are found by one walk of the roots per session, in the background from its start (the
first command waits for it): a new one cannot be made inside (`seccomp.py` refuses the bits),
so only what exists when the session starts, or what the user makes outside meanwhile, can
have them. The walk costs about 7 µs a file here (0.2 s for a virtualenv of 27,000 files);
for an unprivileged user nothing is walked: a set-id file it can write is its own, which
gives nothing, or one another user left writable to all, a hole outside the sandbox as well.

The walk is bounded (`Budget`: entries looked at, depth, time), since a writable root can be
any size (`--add-dir /`, a data set of millions of files). When a bound cuts it, the notice
says which bound, after how many entries and where, and is logged and shown by
`tether sandbox check`: set-id files in what was not walked are not bound.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from tether.slotted import Slotted

NOT_WALKED = frozenset({"/proc", "/sys", "/dev"})
"""Kernel file systems a root of `/` would lead into: no files of anyone's there."""

SCAN_ENTRIES = 500_000
"""How many directory entries one session's walk looks at, at most (about 3.5 s here): a
writable root of millions of files (`--add-dir /`, a data set) must not hold the first
command for minutes."""
SCAN_DEPTH = 64
"""How many directory levels below a root the walk enters (deeper ones are generated trees,
not installs: a setuid file comes from a package manager or a user's `chmod`)."""
SCAN_SECONDS = 10.0
"""How long the walk may take in all (a slow or network file system)."""

_log = logging.getLogger(__name__)


class Budget(Slotted):
    """The bounds of one walk."""

    __slots__ = ("depth", "entries", "seconds")
    entries: Final[int]
    depth: Final[int]
    seconds: Final[float]

    def __init__(
        self, entries: int = SCAN_ENTRIES, depth: int = SCAN_DEPTH, seconds: float = SCAN_SECONDS
    ) -> None:
        self.entries = entries
        self.depth = depth
        self.seconds = seconds


class SetidFound(Slotted):
    """What a walk found, and why it stopped short, if it did."""

    __slots__ = ("cut", "files")
    files: Final[tuple[Path, ...]]
    cut: Final[str | None]
    """The notice when the walk did not see everything: which bound, after how much, where;
    set-id files in what it did not see are not bound read-only."""

    def __init__(self, files: tuple[Path, ...], cut: str | None = None) -> None:
        self.files = files
        self.cut = cut


def find_setid(roots: Iterable[Path], budget: Budget | None = None) -> SetidFound:
    """Every regular file with a set-id bit under `roots` (links not followed; a root inside
    another is walked once), when tether runs as root; none otherwise. Bounded by `budget`
    (entries looked at, depth, time): when a bound cuts the walk, `cut` says so."""
    if os.geteuid() != 0:
        return SetidFound(())
    walk = _Walk(budget or Budget())
    ordered = sorted(dict.fromkeys(roots), key=lambda p: len(p.parts))
    walked: list[Path] = []
    for root in ordered:
        if any(root.is_relative_to(w) for w in walked):
            continue
        walked.append(root)
        walk.run(os.fspath(root))
    return SetidFound(tuple(walk.found), walk.notice())


def walk_cuts(
    stopped: str | None, reason: str, entries: int, too_deep: list[str], depth: int
) -> list[str]:
    """What a bounded walk of the tree did not look at, for its notice: where a bound stopped
    it, and the directories too deep to enter."""
    parts: list[str] = []
    if stopped is not None:
        parts.append(
            f"stopped at its bound of {reason} after {entries} entries, in "
            f"{stopped} (what was not reached yet is not looked at)"
        )
    if too_deep:
        parts.append(
            f"did not enter {len(too_deep)} directories more than "
            f"{depth} levels deep (first: {too_deep[0]})"
        )
    return parts


class _Walk:
    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.found: list[Path] = []
        self.entries = 0
        self.too_deep: list[str] = []
        self.stopped: str | None = None
        """The first directory not finished when the count or time ran out."""
        self.reason = ""
        self.deadline = time.monotonic() + budget.seconds

    def run(self, root: str) -> None:
        stack = [(root, 0)]
        while stack and self.stopped is None:
            directory, depth = stack.pop()
            try:
                entries = os.scandir(directory)
            except OSError:
                continue
            with entries:
                for entry in entries:
                    if self.entries >= self.budget.entries or time.monotonic() > self.deadline:
                        self.reason = (
                            f"{self.budget.entries} entries"
                            if self.entries >= self.budget.entries
                            else f"{self.budget.seconds:g} s"
                        )
                        self.stopped = directory
                        return
                    self.entries += 1
                    self._look(entry, depth, stack)

    def _look(self, entry: os.DirEntry[str], depth: int, stack: list[tuple[str, int]]) -> None:
        try:
            if entry.is_dir(follow_symlinks=False):
                if entry.path in NOT_WALKED:
                    return
                if depth + 1 > self.budget.depth:
                    self.too_deep.append(entry.path)
                else:
                    stack.append((entry.path, depth + 1))
            elif entry.is_file(follow_symlinks=False):
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISREG(mode) and mode & 0o6000:
                    self.found.append(Path(entry.path))
        except OSError:
            return

    def notice(self) -> str | None:
        parts = walk_cuts(self.stopped, self.reason, self.entries, self.too_deep, self.budget.depth)
        if not parts:
            return None
        return (
            "The sandbox's search for setuid and setgid files under the writable roots "
            + "; it ".join(parts)
            + ": a set-id file there is not bound read-only, so a command could rewrite it "
            "through a shared mapping and leave a program that runs as root outside. "
            "Make fewer or smaller directories writable (sandbox.writable, --add-dir)."
        )


class SetidScan:
    """`find_setid` of a session's writable roots, walked in the background from `start`
    (once the session's first response begins: a large workspace's walk would otherwise
    compete with its start for the interpreter) or the first command, whichever comes first;
    asked for other roots (the live check's), it walks them now. A walk cut short by its
    bounds is logged once, as a warning, and its notice kept (`tether sandbox check`)."""

    def __init__(self, roots: tuple[Path, ...], budget: Budget | None = None) -> None:
        self._roots = roots
        self._budget = budget
        self._found = SetidFound(())
        self._thread = threading.Thread(target=self._run, name="tether-setid-scan", daemon=True)
        self._starting = threading.Lock()
        self._started = False

    def start(self) -> None:
        """Start the walk on its thread, unless it was started already."""
        with self._starting:
            if not self._started:
                self._started = True
                self._thread.start()

    def _run(self) -> None:
        self._found = find_setid(self._roots, self._budget)
        if self._found.cut is not None:
            _log.warning("%s", self._found.cut)

    def __call__(self, roots: tuple[Path, ...]) -> SetidFound:
        if roots != self._roots:
            return find_setid(roots, self._budget)
        self.start()
        self._thread.join()
        return self._found
