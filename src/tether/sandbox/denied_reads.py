"""The files and directories the `Read` deny rules name, hidden inside the sandbox.

The permission rules judge the words of a command; they cannot see the code in a Makefile, a
`package.json` script or a Python file that an allowed runner executes (`make`, `npm run test`,
`python3 src/x.py` printing a `Read(**/.env)`-denied file). So, as Claude Code's sandbox does
with its read denials, what a `Read` deny rule matches is hidden in the sandbox: a file reads
as empty (`/dev/null` bound over it), a directory is an empty one (a tmpfs), whatever reads it.

Which paths match is found by a walk at the start of each command (the tree as it is then),
from the deepest literal directory of each rule (`ReadDenials.prefixes`) within the places in
view (the writable roots, the home's places shown, and outside the home anything a rule names
by an absolute path). Git's object stores are not walked (nothing there has a name). Dependency
and ignored directories are (`**/.env` holds in `node_modules` too), within a bound
(`Budget`: entries, depth, time, and how many paths are hidden, each a mount); when a bound cuts
the walk, a notice says which, after how much and where, and the command is not run (fail
closed, `refusal.py`: what the walk did not reach would be readable). A directory's outcome is
kept and used again while its change time stays the same and is over a second old (as git
trusts a racily clean file), so a command in an unchanged tree costs an `lstat` a directory.
"""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from tether.sandbox.setid_files import walk_cuts
from tether.slotted import Slotted

CONTENTS_PROBE = "\x00"
"""A name no file has: a rule that matches `dir/<probe>` matches whatever `dir` holds, so `dir`
is hidden whole."""

SCAN_ENTRIES = 100_000
"""Directory entries one command's walk looks at, at most (read again only where a directory
changed, `_Cache`)."""
SCAN_DEPTH = 64
SCAN_SECONDS = 2.0
SCAN_PASSES = 4
"""Walks a command waits for at most when a bound cuts one after it kept more directories
(a large tree seen for the first time: each pass goes on where the last stopped); a walk
still cut then, or cut with nothing more kept (one directory over the bound, or a tree that
changes at every command), refuses the command (`refusal.py`)."""
SCAN_HIDDEN = 500
"""Paths hidden at most: each is a mount on every command (bwrap's time grows with them)."""

NOT_WALKED = ("/proc", "/sys", "/dev")
_TIME_CHECKS = 4096
"""Entries of one directory's listing between looks at the clock."""

_log = logging.getLogger(__name__)


class ReadDenials(Slotted):
    """What the `Read` deny rules hide: `match` gives the rule an absolute path matches (or
    None); every match lies under one of `prefixes` (absolute directories or files; `/` for a
    rule that matches a name anywhere)."""

    __slots__ = ("match", "names", "prefixes")
    match: Final[Callable[[str], str | None]]
    prefixes: Final[tuple[str, ...]]
    names: Final[Callable[[str], bool] | None]
    """Whether a name could end a match (a walk skips `match` for the others); None: any."""

    def __init__(
        self,
        match: Callable[[str], str | None],
        prefixes: tuple[str, ...],
        names: Callable[[str], bool] | None = None,
    ) -> None:
        self.match = match
        self.prefixes = prefixes
        self.names = names


class Budget(Slotted):
    """The bounds of one command's walk."""

    __slots__ = ("depth", "entries", "hidden", "seconds")
    entries: Final[int]
    depth: Final[int]
    seconds: Final[float]
    hidden: Final[int]

    def __init__(
        self,
        entries: int = SCAN_ENTRIES,
        depth: int = SCAN_DEPTH,
        seconds: float = SCAN_SECONDS,
        hidden: int = SCAN_HIDDEN,
    ) -> None:
        self.entries = entries
        self.depth = depth
        self.seconds = seconds
        self.hidden = hidden


class Denied(Slotted):
    """One path to hide, and the rule that names it."""

    __slots__ = ("directory", "path", "rule")
    path: Final[Path]
    directory: Final[bool]
    rule: Final[str]

    def __init__(self, path: Path, directory: bool, rule: str) -> None:
        self.path = path
        self.directory = directory
        self.rule = rule


class DeniedFound(Slotted):
    """The paths to hide, and the notice when a bound cut the walk."""

    __slots__ = ("cut", "paths")
    paths: Final[tuple[Denied, ...]]
    cut: Final[str | None]

    def __init__(self, paths: tuple[Denied, ...], cut: str | None = None) -> None:
        self.paths = paths
        self.cut = cut


class _Outcome(Slotted):
    __slots__ = ("below", "hidden", "key")
    key: tuple[int, int, int]
    hidden: list[Denied]
    below: list[str]

    def __init__(self, key: tuple[int, int, int], hidden: list[Denied], below: list[str]) -> None:
        self.key = key
        self.hidden = hidden
        self.below = below


class DeniedScan:
    """The walk of one session, with what it keeps between commands (one per `Sandbox`)."""

    def __init__(self, denials: ReadDenials, budget: Budget | None = None) -> None:
        self.denials = denials
        self.budget = budget or Budget()
        self._cache: dict[str, _Outcome] = {}
        self._told: set[str] = set()
        self._racy: dict[str, _Outcome] = {}
        """Directories changed within the last second, kept for this command's passes only."""

    def find(self, places: Iterable[Path], outside: Callable[[Path], bool]) -> DeniedFound:
        """The denied paths now under `places` (the directories in view), and under each
        rule's prefix that lies in none of them but `outside` says is in view."""
        starts = _starts(self.denials.prefixes, [str(p) for p in places], outside)
        self._racy.clear()
        passes = 0
        while True:
            passes += 1
            kept = len(self._cache) + len(self._racy)
            walk = _Walk(self, self.budget)
            for start in starts:
                if walk.stopped is not None:
                    break
                walk.start(start)
            # Cut by its entries or time after keeping more directories: the next pass goes
            # through those at an `lstat` each and on past where this one stopped.
            progressed = len(self._cache) + len(self._racy) > kept and not walk.reason.endswith(
                "hidden paths"
            )
            if walk.stopped is None or not progressed or passes >= SCAN_PASSES:
                break
        found = DeniedFound(tuple(walk.hidden), walk.notice())
        if found.cut is not None and found.cut not in self._told:
            self._told.add(found.cut)
            _log.warning("%s", found.cut)
        return found


def _starts(
    prefixes: tuple[str, ...], places: list[str], outside: Callable[[Path], bool]
) -> list[str]:
    """Where to walk from: each prefix inside a place, each place inside a prefix, and each
    prefix in view outside them all; none inside another."""
    found: list[str] = []
    for prefix in prefixes:
        inside = False
        for place in places:
            if _under(prefix, place):
                found.append(prefix)
                inside = True
            elif _under(place, prefix):
                found.append(place)
                inside = True
        walked = not any(_under(prefix, n) for n in NOT_WALKED)
        if not inside and walked and prefix != "/" and outside(Path(prefix)):
            found.append(prefix)
    unique = sorted(set(found), key=len)
    kept: list[str] = []
    for start in unique:
        if not any(_under(start, k) for k in kept):
            kept.append(start)
    return kept


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class BoundedWalk:
    """A depth-first walk of directories under a `Budget` (entries, depth, time, paths found):
    `_visit` looks at one directory and says which below it to walk; where a bound cut the
    walk is kept for `cuts` (the notice's parts)."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.entries = 0
        self.too_deep: list[str] = []
        self.stopped: str | None = None
        self.reason = ""
        self.deadline = time.monotonic() + budget.seconds

    def run(self, root: str) -> None:
        stack = [(root, 0)]
        while stack and self.stopped is None:
            directory, depth = stack.pop()
            if time.monotonic() > self.deadline:
                self.cut(f"{self.budget.seconds:g} s", directory)
                return
            if self.entries >= self.budget.entries:
                self.cut(f"{self.budget.entries} entries", directory)
                return
            below = self._visit(directory)
            if below is None:
                return
            for path in below:
                if depth + 1 > self.budget.depth:
                    self.too_deep.append(path)
                else:
                    stack.append((path, depth + 1))

    def _visit(self, directory: str) -> Iterable[str] | None:
        """What `directory` holds looked at; its directories to walk, None when a bound cut
        the walk in it."""
        raise NotImplementedError

    def cut(self, reason: str, where: str) -> None:
        self.reason, self.stopped = reason, where

    def counted(self, where: str) -> bool:
        """One more entry looked at. The entry bound is met between directories, not inside
        one: a directory begun is listed whole (cut inside, a directory holding more entries
        than the bound would be begun again at every pass and never kept, and every command
        refused); only the time bound cuts a listing."""
        self.entries += 1
        if self.entries % _TIME_CHECKS == 0 and time.monotonic() > self.deadline:
            self.cut(f"{self.budget.seconds:g} s", where)
            return False
        return True

    def cuts(self) -> list[str]:
        return walk_cuts(self.stopped, self.reason, self.entries, self.too_deep, self.budget.depth)


class _Walk(BoundedWalk):
    def __init__(self, scan: DeniedScan, budget: Budget) -> None:
        super().__init__(budget)
        self.scan = scan
        self.match = scan.denials.match
        self.names = scan.denials.names
        self.hidden: list[Denied] = []

    def start(self, root: str) -> None:
        try:
            mode = os.lstat(root).st_mode
        except OSError:
            return
        rule = self.match(root)
        if rule is None and stat.S_ISDIR(mode):
            rule = self.match(root.rstrip("/") + "/" + CONTENTS_PROBE)
        if rule is not None:
            self._hide(root, mode, rule)
            return
        if stat.S_ISDIR(mode):
            self.run(root)

    def _hide(self, path: str, mode: int, rule: str) -> None:
        if stat.S_ISLNK(mode):
            # A mount cannot cover a link: what it leads to is hidden, where that is in view
            # (the mounts decide).
            try:
                real = os.path.realpath(path)
                mode = os.stat(real).st_mode
            except (OSError, ValueError):
                return
            path = real
        if len(self.hidden) >= self.budget.hidden:
            self.cut(f"{self.budget.hidden} hidden paths", path)
            return
        self.hidden.append(Denied(Path(path), stat.S_ISDIR(mode), rule))

    def _visit(self, directory: str) -> Iterable[str] | None:
        outcome = self._outcome(directory)
        if outcome is None:
            return None
        for denied in outcome.hidden:
            if len(self.hidden) >= self.budget.hidden:
                self.cut(f"{self.budget.hidden} hidden paths", directory)
                return None
            self.hidden.append(denied)
        return outcome.below

    def _outcome(self, directory: str) -> _Outcome | None:
        """What `directory` holds that is denied, and its directories to walk; None when the
        entry bound ran out in it."""
        try:
            st = os.lstat(directory)
        except OSError:
            return _Outcome((0, 0, 0), [], [])
        key = (st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        cache = self.scan._cache  # pyright: ignore[reportPrivateUsage]
        racy = self.scan._racy  # pyright: ignore[reportPrivateUsage]
        kept = cache.get(directory) or racy.get(directory)
        if kept is not None and kept.key == key:
            self.entries += len(kept.below) + len(kept.hidden)
            return kept
        outcome = _Outcome(key, [], [])
        git_dir = os.path.basename(directory) == ".git" or "/.git/" in directory
        try:
            entries = os.scandir(directory)
        except OSError:
            return outcome
        with entries:
            for entry in entries:
                if not self.counted(directory):
                    return None
                self._look(entry, outcome, git_dir=git_dir)
        # A directory changed within the last second may change again unseen in the same
        # tick of its clock: kept for this command's next pass only.
        if time.time_ns() - st.st_mtime_ns > 1_000_000_000:
            cache[directory] = outcome
        else:
            racy[directory] = outcome
        return outcome

    def _look(self, entry: os.DirEntry[str], outcome: _Outcome, *, git_dir: bool) -> None:
        # The entry's type from the listing (no `lstat` of each of a large directory's files).
        try:
            directory = entry.is_dir(follow_symlinks=False)
        except OSError:
            return
        path = entry.path
        names = self.names
        rule = self.match(path) if names is None or names(entry.name) else None
        if rule is None and directory and (names is None or names(CONTENTS_PROBE)):
            rule = self.match(path + "/" + CONTENTS_PROBE)
        if rule is not None:
            try:
                if entry.is_symlink():
                    path = os.path.realpath(path)
                mode = os.stat(path, follow_symlinks=False).st_mode
            except (OSError, ValueError):
                return
            outcome.hidden.append(Denied(Path(path), stat.S_ISDIR(mode), rule))
        elif directory and not (git_dir and entry.name == "objects"):
            outcome.below.append(path)

    def notice(self) -> str | None:
        parts = self.cuts()
        if not parts:
            return None
        return (
            "The sandbox's search for files the Read deny rules name "
            + "; it ".join(parts)
            + ": a denied file there could not be hidden, so commands are not run (fail "
            "closed). Narrow the rules (a path rather than a name matched anywhere) or make "
            "fewer directories writable."
        )
