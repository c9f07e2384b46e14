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
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterable
from pathlib import Path

NOT_WALKED = frozenset({"/proc", "/sys", "/dev"})
"""Kernel file systems a root of `/` would lead into: no files of anyone's there."""


def find_setid(roots: Iterable[Path]) -> tuple[Path, ...]:
    """Every regular file with a set-id bit under `roots` (links not followed; a root inside
    another is walked once), when tether runs as root; none otherwise."""
    if os.geteuid() != 0:
        return ()
    ordered = sorted(dict.fromkeys(roots), key=lambda p: len(p.parts))
    walked: list[Path] = []
    found: list[Path] = []
    for root in ordered:
        if any(root.is_relative_to(w) for w in walked):
            continue
        walked.append(root)
        found += _walk(os.fspath(root))
    return tuple(found)


def _walk(root: str) -> list[Path]:
    found: list[Path] = []
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.path not in NOT_WALKED:
                            stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        mode = entry.stat(follow_symlinks=False).st_mode
                        if stat.S_ISREG(mode) and mode & 0o6000:
                            found.append(Path(entry.path))
                except OSError:
                    continue
    return found


class SetidScan:
    """`find_setid` of a session's writable roots, started in the background at its start;
    asked for other roots (the live check's), it walks them now."""

    def __init__(self, roots: tuple[Path, ...]) -> None:
        self._roots = roots
        self._found: tuple[Path, ...] = ()
        self._thread = threading.Thread(target=self._run, name="tether-setid-scan", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self._found = find_setid(self._roots)

    def __call__(self, roots: tuple[Path, ...]) -> tuple[Path, ...]:
        if roots != self._roots:
            return find_setid(roots)
        self._thread.join()
        return self._found
