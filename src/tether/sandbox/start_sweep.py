"""Files that start programs later, made or changed by sandboxed commands where no mount keeps
them read-only: moved aside when the command ends, before anything outside reads them.

The protected paths (`protected.py`, `nested.py`) are bind mounts: read-only where they exist
and placeholders where they are missing, at the writable roots, in nested projects and in the
first tool roots. A mount per name and directory everywhere would cost every command dearly,
so elsewhere (a plain `sub/`, a package deeper than the search's bound, a plugin directory of
a workspace marketplace) a command could make `sub/.claude/settings.json`, whose hooks a
`tether` started in `sub/` later runs outside the sandbox. This sweep closes that by pattern:
the writable roots are walked (each directory's listing kept while it is unchanged: an
unchanged tree costs a `stat` a directory) for every path of the table the permission engine
asks about (`tether.project_files.PROJECT_SELF_MODIFYING`, at any depth) and for the parts of
plugin directories (`PLUGIN_PARTS` beside a `.claude-plugin`, and the plugins a workspace
marketplace names); what is new or changed since the command started is renamed to
`<name>.tether-disabled`, and the model is told.

What changed while no sandboxed command ran (the Write tool with the user's yes, the user's
editor) is kept: told apart by its change time (`st_ctime`, which no program can set back; a
rename or a new link sets it too), so one walk a command suffices, after it. A renamed
directory's files keep theirs, so the way down counts too: below a directory that was not at
its path at the last sweep and whose own change time falls while a command ran (the tools
filled `sub/x`, a command renamed it `sub/.claude`), everything is the command's.
"""

from __future__ import annotations

import contextlib
import glob
import os
import threading
import time
from pathlib import Path

from tether.git_run_paths import git_run_paths
from tether.sandbox.edit_sweep import EditSweep
from tether.sandbox.envrc_sources import envrc_loads
from tether.sandbox.git_dirs import SKIPPED
from tether.sandbox.git_state import SequencerTodos, git_dirs
from tether.sandbox.git_store import StoreSweep
from tether.sandbox.git_strategy import Strategies
from tether.sandbox.git_sweep import DISABLED, move_aside, within
from tether.sandbox.repo_content import RepoHistory
from tether.sandbox.start_patterns import is_disabled, matches, swept_path
from tether.sandbox.sweep_note import moved_note
from tether.sandbox.venv_start import environments, pth_is_data, venv_start_files
from tether.slotted import Slotted

NOT_WALKED = SKIPPED | {".git", ".hg", "venv", ".nox", ".cache", ".pytest_cache"}
"""Dependencies, build caches and repositories' own directories (`git_sweep.py`'s)."""

MAX_ENTRIES = 1_000_000
"""The walk stops after this many entries, those below matched directories (a `.claude` full
of files) included: then commands are refused until one completes (fail closed)."""

Stamp = tuple[int, int, int, int]
"""(inode, size, mtime, ctime), links not followed."""

CLOCK_MARGIN_NS = 20_000_000
"""Change times come from the kernel's coarse clock (a tick behind the precise one): an idle
time is taken to end this much before the command started, so that a write at its very start
is never counted as the tools'."""


class _Listed(Slotted):
    __slots__ = ("identity", "matched", "subdirs")
    identity: tuple[int, int, int, int]
    subdirs: tuple[str, ...]
    matched: tuple[str, ...]
    """Paths below the directory (relative) that match the table or are a plugin's parts."""

    def __init__(
        self,
        identity: tuple[int, int, int, int],
        subdirs: tuple[str, ...],
        matched: tuple[str, ...],
    ) -> None:
        self.identity = identity
        self.subdirs = subdirs
        self.matched = matched


class StartSweep:
    """A session's sweep of start-up files made by its commands."""

    def __init__(
        self, *, max_entries: int = MAX_ENTRIES, history: RepoHistory | None = None
    ) -> None:
        self.before: dict[str, Stamp] | None = None
        """The files found by the last sweep (by the session's first command, before the
        first)."""
        self.swept_at = 0
        """When the last sweep began (ns)."""
        self.idle: list[tuple[int, int]] = []
        """The times since the last sweep when no sandboxed command ran: what changed then (by
        its change time, which no program can set back) is the tools' or the user's."""
        self.running = 0
        self.bound: frozenset[str] = frozenset()
        """Paths bound read-only to the commands now: nothing inside changes what is below
        them (a change there is the user's, outside)."""
        self.writable: frozenset[str] = frozenset()
        self.shut: frozenset[str] = frozenset()
        """The commands' writable roots, and what is hidden from them or shown read-only
        (tether's own home among them): below a path whose nearest root is shut, a change is
        not a command's but tether's own (its run record, transcript, event log) or the
        user's (`mounts.py` sets all three, `closed`)."""
        self.notes: list[str] = []
        self.cut: str | None = None
        self.listings: dict[str, _Listed] = {}
        self.lock = threading.Lock()
        self.max_entries = max_entries
        self.excluded: frozenset[str] = frozenset()
        """The session's own scratch and temporary directories: not walked."""
        self.roots: frozenset[str] = frozenset()
        self.dirs: dict[str, tuple[int, int]] = {}
        """Each walked directory's (device, inode) at the last sweep: one at a path that held
        another (or none) was brought there since."""
        self.dir_stats: dict[str, os.stat_result] = {}
        """Directories' `stat` from the git sweep's walk just before
        (`git_sweep.GitSweep.stats`): used instead of a `stat` of each, once, then emptied (a
        sweep with no walk just before finds it empty)."""
        self.list_dir: Path | None = None
        """Where the whole list of what a sweep moved aside goes (the session's TMPDIR)."""
        self.edits = EditSweep()
        """New files the `Edit` deny rules name (`edit_sweep.py`), swept with these."""
        self.history = history if history is not None else RepoHistory(swept=swept_path)
        """The refs the session's repositories had at its first command: content checked out
        from them is the repository's own, kept (`repo_content.py`)."""
        self.todos = SequencerTodos()  # `git_state.py`
        self.strategies = Strategies()  # `git_strategy.py`
        self.store = StoreSweep()  # `git_store.py`
        self.entered: frozenset[str] | None = None
        """The virtual environments there at the session's first walk, whose entry files
        (activation scripts, interpreter links, `pyvenv.cfg`) are swept (`venv_start.py`)."""
        self.known: set[str] = set()
        """Every matched path found by the session's walks, looked at again by each: a command
        that empties the marketplace file and fills a plugin's hooks in one go is judged by
        the plugins it listed before."""

    def started(
        self,
        roots: tuple[Path, ...],
        excluded: tuple[Path, ...] = (),
        repos: tuple[Path, ...] = (),
        stats: dict[str, os.stat_result] | None = None,
    ) -> None:
        """A command starts. The first of the session takes the state it is judged from;
        with one running (in the background), what it made so far goes first; with none,
        the time since the last sweep was idle: what changed then is kept. No walk but the
        first: a change is told from the walk after the command by its change time. `repos`:
        the work trees and git directories there now (the first command's are recorded)."""
        self.excluded = frozenset(os.fspath(p) for p in excluded)
        self.list_dir = excluded[0] if excluded else None
        if stats is not None:
            self.dir_stats = stats
        if self.running > 0:
            self.sweep(roots)
        with self.lock:
            if self.before is None:
                trees = [p.parent if p.name == ".git" else p for p in repos]
                trees = [t for t in dict.fromkeys(trees) if (t / ".git").exists()]
                self.history.record(trees, (*roots, *excluded), repos)
                self.todos.record(git_dirs(self.history.commons()))
                self.strategies.record(git_dirs(self.history.commons()))
                self.store.record(git_dirs(self.history.commons()))
                self.swept_at = time.time_ns()
                self.before, self.cut, self.dirs = self._walk(roots)
                self.dir_stats.clear()
            elif self.running == 0:
                self.idle.append((self.swept_at, time.time_ns() - CLOCK_MARGIN_NS))
            self.running += 1

    def ended(self) -> None:
        with self.lock:
            self.running = max(0, self.running - 1)

    def sweep(self, roots: tuple[Path, ...], repos: tuple[Path, ...] = ()) -> None:
        """Move aside what is new or changed since the last sweep, but for what changed while
        no command ran, while a command runs (what changes while none does is not the
        commands'). `repos`: the git directories there now (those made since the first
        command are the commands', `RepoHistory.made_repos`)."""
        with self.lock:
            if self.before is None or self.running == 0:
                return
            swept_at = time.time_ns()
            self.history.moved()
            # The session's own TMPDIR goes with it: nothing to keep of a repository there.
            self.history.made_repos(r for r in repos if not within(os.fspath(r), self.excluded))
            gits = git_dirs(self.history.commons())
            self.notes += self.todos.sweep(gits) + self.strategies.sweep(gits) + self.store.sweep()
            now, self.cut, dirs = self._walk(roots)
            self.dir_stats.clear()
            moved: list[str] = []
            judged: list[str] = []
            for path, stamp in sorted(now.items()):
                if self.before.get(path) == stamp or self._closed(path):
                    continue
                if self._idle(stamp[3]) and self._brought(path) is None:
                    continue
                judged.append(path)
            own = self.history.own(judged) if judged else set[str]()
            for path in judged:
                if path in own:
                    continue  # checked out of what the repository had: its own
                if pth_is_data(path):
                    continue  # paths only (`pip install -e`): nothing runs
                with contextlib.suppress(OSError):
                    target = move_aside(Path(path))
                    if target is None:
                        continue  # gone already: nothing left to move
                    moved.append(
                        path
                        if target.name == Path(path).name + DISABLED
                        else f"{path} (now {target.name})"
                    )
                    del now[path]
            self.before, self.swept_at, self.idle, self.dirs = now, swept_at, [], dirs
            if moved:
                self.notes.append(moved_note(moved, self.list_dir))
            if (edited := self.edits.sweep(roots)) is not None:
                self.notes.append(edited)
            if self.cut is not None:
                self.notes.append(self.cut)

    def _closed(self, path: str) -> bool:
        """Whether commands cannot write `path`: the nearest of the roots holding it is bound
        read-only or shut rather than writable (at one path, the mounts' order: a protected
        bind over a writable one over a cover)."""
        while True:
            if path in self.bound:
                return True
            if path in self.writable:
                return False
            if path in self.shut:
                return True
            parent = os.path.dirname(path)
            if parent == path:
                return False
            path = parent

    def _idle(self, ctime: int) -> bool:
        return any(start <= ctime < end for start, end in self.idle)

    def _brought(self, path: str) -> str | None:
        """The directory on `path`'s way down from its root that a command brought to its
        place since the last sweep (made it, or renamed it there: a rename sets the moved
        directory's change time, not its files'), if any."""
        directory = os.path.dirname(path)
        while directory not in self.roots and os.path.dirname(directory) != directory:
            try:
                info = os.lstat(directory)
            except OSError:
                return directory
            if (
                self.dirs.get(directory) != (info.st_dev, info.st_ino)
                and info.st_ctime_ns >= self.swept_at - CLOCK_MARGIN_NS
                and not self._idle(info.st_ctime_ns)
            ):
                return directory
            directory = os.path.dirname(directory)
        return None

    def take_note(self) -> str | None:
        with self.lock:
            notes, self.notes = self.notes, []
        return "; ".join(notes) if notes else None

    def _walk(
        self, roots: tuple[Path, ...]
    ) -> tuple[dict[str, Stamp], str | None, dict[str, tuple[int, int]]]:
        """Every file (or link) at or below a matched path under `roots`, with its stamp; the
        cut, if the bound was reached; each directory walked, with its (device, inode)."""
        found: dict[str, Stamp] = {}
        dirs: dict[str, tuple[int, int]] = {}
        unfinished: list[str] = []
        budget = self.max_entries
        pending = [os.fspath(r) for r in roots if r.is_dir()]
        self.roots = frozenset(pending)
        seen: set[str] = set()
        while pending and budget > 0:
            directory = pending.pop()
            if directory in seen or directory in self.excluded:
                continue
            seen.add(directory)
            listed = self._listed(directory)
            if listed is None:
                continue
            dirs[directory] = listed.identity[:2]
            budget -= 1 + len(listed.matched)
            for relative in listed.matched:
                if any(c in relative for c in "*?["):
                    for each in glob.glob(relative, root_dir=directory, include_hidden=True):
                        path = os.path.join(directory, each)
                        budget -= _stamp_below(path, found, self.excluded, budget, unfinished)
                else:
                    path = directory if relative == "." else os.path.join(directory, relative)
                    self.known.add(path)
                    budget -= _stamp_below(path, found, self.excluded, budget, unfinished)
            pending += [os.path.join(directory, name) for name in listed.subdirs]
        for path in sorted(self.known):
            if path not in found and any(Path(path).is_relative_to(r) for r in roots):
                budget -= _stamp_below(path, found, self.excluded, budget, unfinished)
        if self.entered is None:  # the session's first walk: the environments there now
            self.entered = frozenset(environments(sorted(self.roots)))
        for path in venv_start_files(sorted(self.roots), self.entered):
            budget -= _stamp_below(path, found, self.excluded, budget, unfinished)
        for path in _git_configs(sorted(self.roots)):
            budget -= _stamp_below(path, found, self.excluded, budget, unfinished)
        envrcs = [path for path in found if os.path.basename(path) == ".envrc"]
        for path in envrc_loads(envrcs):  # `envrc_sources.py`: missing ones too
            if within(path, self.roots):
                budget -= _stamp_below(path, found, self.excluded, budget, unfinished)
        cut = None
        if budget <= 0 and (pending or unfinished):
            where = unfinished[0] if unfinished else pending[-1]
            cut = (
                f"The sandbox's sweep for start-up files made by commands (settings, hooks, MCP "
                f"servers) stopped at its bound of {self.max_entries} entries, in {where}: "
                "commands are not run (fail closed) until a sweep completes."
            )
        return found, cut, dirs

    def _listed(self, directory: str) -> _Listed | None:
        info = self.dir_stats.get(directory)
        try:
            info = info or os.stat(directory, follow_symlinks=False)
        except OSError:
            return None
        identity = (info.st_dev, info.st_ino, info.st_ctime_ns, info.st_mtime_ns)
        kept = self.listings.get(directory)
        if kept is not None and kept.identity == identity:
            return kept
        started = time.time_ns()
        try:
            with os.scandir(directory) as entries:
                children = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        except OSError:
            return None
        names = {name for name, _ in children}
        matched = matches(Path(directory), names, root=directory in self.roots)
        subdirs = tuple(name for name, is_dir in children if is_dir and name not in NOT_WALKED)
        listed = _Listed(identity, subdirs, tuple(matched))
        racy = max(info.st_ctime_ns, info.st_mtime_ns) >= started - 1_000_000_000
        # A plugin's manifests are read again each time: a marketplace may list another.
        if not racy and ".claude-plugin" not in names:
            self.listings[directory] = listed
        else:
            self.listings.pop(directory, None)
        return listed


def _git_configs(roots: list[str]) -> list[str]:
    """The config files the repositories of `roots` read, under a root: those their configs
    include, missing ones too (`include.path = ../.gitconfig.local`). One that exists is
    mounted read-only (`protected.py`); one a command makes is read by the user's next git
    outside (its `core.fsmonitor`, its hooks path), so it is swept like a start file."""
    under = frozenset(roots)
    configs = (os.fspath(c) for root in roots for c in git_run_paths(Path(root)).config_files)
    return [path for path in dict.fromkeys(configs) if within(path, under)]


def _stamp_below(
    path: str, found: dict[str, Stamp], excluded: frozenset[str], limit: int, unfinished: list[str]
) -> int:
    """Add the stamps of `path` (a file or link) or of every file and link below it (a
    directory, not through links); how many entries were looked at. Past `limit`, `path` is
    added to `unfinished` (the walk is cut: fail closed)."""
    try:
        info = os.lstat(path)
    except OSError:
        return 1
    if not os.path.isdir(path) or os.path.islink(path):
        if not is_disabled(os.path.basename(path)):
            found[path] = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        return 1
    count, pending = 1, [path]
    while pending:
        if count >= limit:
            unfinished.append(path)
            break
        directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError:
            continue
        count += len(listed)
        for entry in listed:
            if is_disabled(entry.name):
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.path not in excluded and entry.name not in NOT_WALKED:
                    pending.append(entry.path)
                continue
            with contextlib.suppress(OSError):
                s = entry.stat(follow_symlinks=False)
                found[entry.path] = (s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns)
    return count
