"""Other names of hidden files: hard links to what the sandbox hides, hidden too.

A cover hides a path, not a file: a hard link made outside under another name (`ln .env
notes/envcopy`, made before the session or by the user meanwhile) is the same file, readable
through that name (measured: an archive of `notes/` carried the secret). So at each command the
hidden files (what the `Read` deny rules name, the credential places of the home) that have
more than one link are looked for under the places in view (the writable roots and the places
shown read-only), and every other name of theirs found there is covered as they are.

The cost falls only where such a file exists: a hidden file with a single link has no other
name, and then nothing is walked (a `stat` per hidden file, and per file in a hidden directory
within `SOURCE_ENTRIES`). Otherwise the places are walked by directory listings only (the
inode number of each entry comes with the listing), each directory's kept while its change
time stays and is over a second old, so an unchanged tree costs an `lstat` a directory; the
walk is bounded (`denied_reads.Budget`) and a notice says where it stopped.
"""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from tether.sandbox.denied_reads import BoundedWalk, Budget, Denied, DeniedFound
from tether.slotted import Slotted

SOURCE_ENTRIES = 10_000
"""Entries of hidden directories looked at, at most, for files with other links."""

_log = logging.getLogger(__name__)

Identity = tuple[int, int]
"""(st_dev, st_ino): what a file is, whatever its name."""


class _Listing(Slotted):
    __slots__ = ("below", "entries", "files", "key")
    key: tuple[int, int, int]
    files: dict[int, list[str]]
    """Inode number to the names of the regular files with it."""
    below: list[str]
    entries: int

    def __init__(
        self,
        key: tuple[int, int, int],
        files: dict[int, list[str]],
        below: list[str],
        entries: int = 0,
    ) -> None:
        self.key = key
        self.files = files
        self.below = below
        self.entries = entries


class DeniedLinks:
    """The search of one session, with the listings it keeps between commands."""

    def __init__(self, budget: Budget | None = None, source_entries: int = SOURCE_ENTRIES) -> None:
        self.budget = budget or Budget()
        self.source_entries = source_entries
        self._cache: dict[str, _Listing] = {}
        self._told: set[str] = set()

    def find(self, hidden: Iterable[tuple[Path, str]], places: Iterable[Path]) -> DeniedFound:
        """The other names, under `places`, of the files `hidden` covers (each with why it is
        hidden: a rule, "a credential place"), and what a bound cut."""
        hidden = list(hidden)
        starts = list(dict.fromkeys(str(p) for p in places))
        wanted, cut = _linked_files(hidden, self.source_entries, starts)
        if not wanted:
            return DeniedFound((), cut)
        covered = {str(path) for path, _ in hidden}
        walk = _LinkWalk(self, wanted)
        for place in starts:
            if walk.stopped is not None:
                break
            walk.run(place)
        found = tuple(d for d in walk.found if str(d.path) not in covered)
        notice = cut or walk.notice()
        if notice is not None and notice not in self._told:
            self._told.add(notice)
            _log.warning("%s", notice)
        return DeniedFound(found, notice)


def _linked_files(
    hidden: Iterable[tuple[Path, str]], bound: int, places: list[str]
) -> tuple[dict[Identity, str], str | None]:
    """The hidden regular files with more than one link (in hidden directories too, but for
    the places in view there: the session's scratch directory under tether's hidden home), each
    with why it is hidden; and a notice when `bound` entries cut the look at a directory."""
    in_view = set(places)
    wanted: dict[Identity, str] = {}
    entries = 0
    for path, why in hidden:
        pending = [str(path)]
        while pending:
            name = pending.pop()
            try:
                info = os.lstat(name)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                wanted.setdefault((info.st_dev, info.st_ino), why)
            elif stat.S_ISDIR(info.st_mode):
                try:
                    names = os.listdir(name)
                except OSError:
                    continue
                entries += len(names)
                if entries > bound:
                    return wanted, (
                        f"The sandbox's search for other names (hard links) of hidden files "
                        f"stopped at its bound of {bound} entries in {name}: a hard link "
                        "elsewhere to a file below it could not be hidden, so commands are "
                        "not run (fail closed)."
                    )
                pending += [below for n in names if (below := os.path.join(name, n)) not in in_view]
    return wanted, None


class _LinkWalk(BoundedWalk):
    def __init__(self, search: DeniedLinks, wanted: dict[Identity, str]) -> None:
        super().__init__(search.budget)
        self.search = search
        self.wanted = wanted
        self.inodes = {ino for _, ino in wanted}
        self.found: list[Denied] = []

    def _visit(self, directory: str) -> Iterable[str] | None:
        listing = self._listing(directory)
        if listing is None:
            return None
        for ino in self.inodes & listing.files.keys():
            for name in listing.files[ino]:
                self._check(os.path.join(directory, name))
        return listing.below

    def _check(self, path: str) -> None:
        """`path` has a hidden file's inode number: hidden if it is that file (same device)."""
        try:
            info = os.lstat(path)
        except OSError:
            return
        why = self.wanted.get((info.st_dev, info.st_ino))
        if why is None or not stat.S_ISREG(info.st_mode):
            return
        if len(self.found) >= self.budget.hidden:
            self.cut(f"{self.budget.hidden} hidden paths", path)
            return
        self.found.append(Denied(Path(path), False, f"a hard link to a file hidden by {why}"))

    def _listing(self, directory: str) -> _Listing | None:
        try:
            st = os.lstat(directory)
        except OSError:
            return _Listing((0, 0, 0), {}, [])
        if not stat.S_ISDIR(st.st_mode):
            return _Listing((0, 0, 0), {}, [])
        key = (st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        cache = self.search._cache  # pyright: ignore[reportPrivateUsage]
        kept = cache.get(directory)
        if kept is not None and kept.key == key:
            # Kept: its inode numbers are looked up, not its entries gone through again.
            self.entries += len(kept.below) + 1
            return kept
        listing = _Listing(key, {}, [])
        try:
            entries = os.scandir(directory)
        except OSError:
            return listing
        with entries:
            for entry in entries:
                if not self.counted(directory):
                    return None
                listing.entries += 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        listing.below.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        listing.files.setdefault(entry.inode(), []).append(entry.name)
                except OSError:
                    continue
        # A directory changed within the last second may change again unseen in the same
        # tick of its clock: not kept.
        if time.time_ns() - st.st_mtime_ns > 1_000_000_000:
            cache[directory] = listing
        return listing

    def notice(self) -> str | None:
        parts = self.cuts()
        if not parts:
            return None
        return (
            "The sandbox's search for other names (hard links) of hidden files "
            + "; it ".join(parts)
            + ": a hard link to a hidden file there could not be hidden, so commands are "
            "not run (fail closed)."
        )
