"""Git configuration and hooks that sandboxed commands made, disabled before git outside runs
them.

The protected paths keep every git directory that exists when a command starts read-only,
and a missing `.git` where a project is. A command can still make a repository anywhere else
in a writable place (`git init vendor`, a `.git` file pointing into TMPDIR, a submodule's
directory under `.git/modules`) and give it a config or hooks; once the parent's index has a
gitlink there, the user's next `git status` outside runs that repository's `core.fsmonitor`
(measured). No mount can stop a directory being made under any name, so after each command
(and before the next one starts, for background commands, and at the session's end) the
writable roots are walked for git directories whose config or hooks changed since the
session's first command, and what in them runs programs is disabled:

- a config with a key outside `SAFE_KEYS` (what `git init`, `git clone`, `git submodule` and
  the usual settings write) is rewritten with the safe keys only; the original is kept beside
  it as `config.tether-disabled` (git never reads it), so nothing is lost;
- hooks (anything in `hooks/` but git's `*.sample` files) are moved to `hooks.tether-disabled/`.

The model is told what was disabled and where the original is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from tether.sandbox.git_dirs import MAX_ENTRIES, Listing, repositories
from tether.sandbox.gitlinks import Kept
from tether.sandbox.hg_sweep import HG_CONFIGS, disable_hgrc
from tether.sandbox.nofollow import read_regular_file

_log = logging.getLogger(__name__)

DISABLED = ".tether-disabled"

SAFE_KEYS = re.compile(
    r"(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|"
    r"precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|sparsecheckout|"
    r"sparsecheckoutcone|compression|bigfilethreshold|abbrev|untrackedcache|splitindex|"
    r"commitgraph|multipackindex|checkstat|trustctime)"
    r"|remote\.[^\n]*\.(url|pushurl|fetch|push|tagopt|prune|mirror|promisor|partialclonefilter)"
    r"|branch\.[^\n]*\.(remote|merge|rebase|pushremote|description)"
    r"|submodule\.[^\n]*\.(url|active|branch)"
    r"|user\.(name|email)|init\.defaultbranch|(commit|tag)\.gpgsign|pull\.(rebase|ff)"
    r"|push\.(default|autosetupremote)|fetch\.prune|merge\.ff|advice\.[^\n.]*|color\.[^\n]*"
    r"|i18n\.[^\n.]*|extensions\.(objectformat|worktreeconfig|partialclone)"
    r"|gc\.(auto|autodetach)|lfs\.(repositoryformatversion|url))",
    re.IGNORECASE,
)
"""Config keys that run nothing whatever their value: the rest (`core.fsmonitor`,
`core.hooksPath`, `core.sshCommand`, `core.pager`, filters, diff and merge drivers,
`credential.helper`, `include.path`, `protocol.*.allow`, `url.*.insteadOf`,
`submodule.*.update`, aliases...) can make a later git run a program."""
SAFE_VALUES = {"core.fsmonitor": frozenset({"true", "false"})}
"""Keys safe with these values only (git's own fsmonitor daemon)."""


@dataclass
class GitSweep:
    """A session's sweep: what was there at its first command, and what to tell the model."""

    before: dict[str, Stamp] | None = None
    """The config files and hooks of the git directories there at the session's first
    command, with their stamps: what is still so is left alone (the user's own, read-only to
    every command where protected); what is new or changed since is judged. None: no command
    started yet."""
    notes: list[str] = field(default_factory=list[str])
    listings: dict[str, Listing] = field(default_factory=dict[str, "Listing"])
    indexes: Kept = field(default_factory=Kept)
    """The gitlinks of each index, kept while it is unchanged (`gitlinks.py`)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    mine: frozenset[str] = frozenset()
    """Protected paths there at the first command, and bound read-only to every command
    since: the user's (`started`, `still_protected`)."""
    max_entries: int = MAX_ENTRIES
    cut: str | None = None
    """What cut the last walk (its bound, where), or None: while set, commands are refused."""
    stats: dict[str, os.stat_result] = field(default_factory=dict[str, os.stat_result])
    """Each directory's `stat` from the last walk, for the start-up file sweep right after it
    (which empties it: `start_sweep.py`)."""
    first_repos: tuple[Path, ...] = ()
    """The git directories the first walk found (the repositories before the session)."""
    repos_now: tuple[Path, ...] = ()
    """The git directories the last walk found."""

    def started(self, roots: Iterable[Path], protected: Iterable[Path] = ()) -> None:
        """A command starts: changes from now on are the session's commands'. `protected`:
        the paths bound read-only to it; those there now were so to every command since (a
        mount point cannot be removed), so a change there is the user's own, made outside
        (`git push -u` rewrites the config): never judged."""
        with self.lock:
            if self.before is None:
                self.stats.clear()
                found, hg, self.cut = repositories(
                    tuple(roots), self.listings, self.indexes, self.max_entries, self.stats
                )
                self.first_repos = self.repos_now = tuple(found)
                files = [path for git_dir in found for path in _program_files(git_dir)]
                files += [hg_dir / name for hg_dir in hg for name in HG_CONFIGS]
                self.before = {
                    str(path): stamp for path in files if (stamp := _stamp(path)) is not None
                }
                self.mine = frozenset(str(p) for p in protected if str(p) in self.before)

    def sweep(self, roots: Iterable[Path]) -> None:
        """Disable what the session's commands made in git directories under `roots`; what
        was done is kept for `take_note`."""
        with self.lock:
            if self.before is not None:
                judged = {**self.before, **dict.fromkeys(self.mine, _MINE)}
                self.stats.clear()
                found: list[Path] = []
                done, self.cut = disable_new_git_programs(
                    tuple(roots),
                    judged,
                    self.listings,
                    self.indexes,
                    self.max_entries,
                    self.stats,
                    found,
                )
                self.repos_now = tuple(found)
                self.notes += done
                if self.cut is not None:
                    # The user hears it too: at the session's end no model reads the note.
                    self.notes.append(self.cut)
                    _log.warning("%s", self.cut)

    def still_protected(self, bound: Iterable[str]) -> None:
        """A command starts with `bound` read-only: a path of `mine` no longer bound (the
        search for nested projects stopped short of it) is the commands' to change from now
        on, so it is judged from its state now, as any other."""
        bound = set(bound)
        with self.lock:
            lost = {p for p in self.mine if not within(p, bound)}
            if not lost or self.before is None:
                return
            self.mine -= lost
            for text in lost:
                path = Path(text)
                paths = [path]
                if path.is_dir() and not path.is_symlink():
                    with contextlib.suppress(OSError):
                        paths += [Path(e.path) for e in os.scandir(path)]
                for each in paths:
                    stamp = _stamp(each)
                    if stamp is None:
                        self.before.pop(str(each), None)
                    else:
                        self.before[str(each)] = stamp

    def take_note(self) -> str | None:
        """The note for the model of what the sweeps since the last one disabled, or None."""
        with self.lock:
            notes, self.notes = self.notes, []
        return "; ".join(notes) if notes else None


def within(path: str, bound: AbstractSet[str]) -> bool:
    """Whether `path` or a directory holding it is in `bound`."""
    while True:
        if path in bound:
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def disable_new_git_programs(
    roots: tuple[Path, ...],
    before: dict[str, Stamp],
    cache: dict[str, Listing] | None = None,
    indexes: Kept | None = None,
    max_entries: int = MAX_ENTRIES,
    stats: dict[str, os.stat_result] | None = None,
    found_into: list[Path] | None = None,
) -> tuple[list[str], str | None]:
    """What was disabled under `roots`: in git directories, the config files and hooks that
    are not as `before` has them; in Mercurial's, the `hgrc` (`hg_sweep.py`); and what cut
    the walk, if a bound did. `found_into`: given the git directories found."""
    done: list[str] = []
    found, hg, cut = repositories(roots, cache, indexes, max_entries, stats)
    if found_into is not None:
        found_into += found
    for git_dir in found:
        done += _disable(git_dir, before)
    for hg_dir in hg:
        for name in HG_CONFIGS:
            if _changed(hg_dir / name, before):
                done += disable_hgrc(hg_dir, name)
    return done, cut


Stamp = tuple[int, int, int, int]
"""A file's identity and times: (inode, size, mtime, ctime), links not followed."""


def _stamp(path: Path) -> Stamp | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _program_files(git_dir: Path) -> list[Path]:
    """What in a git directory can name programs: its config files, hooks (and the hooks
    directory itself, a link perhaps)."""
    found = [git_dir / "config", git_dir / "config.worktree", git_dir / "hooks"]
    hooks = git_dir / "hooks"
    if hooks.is_dir() and not hooks.is_symlink():
        with contextlib.suppress(OSError):
            found += [Path(e.path) for e in os.scandir(hooks)]
    return found


_MINE: Stamp = (-1, -1, -1, -1)
"""The stamp of a path that is never judged (the user's, `GitSweep.mine`)."""


def _changed(path: Path, before: dict[str, Stamp]) -> bool:
    """Whether `path` exists and is not as it was at the session's first command (never, in
    a directory or at a path that is the user's)."""
    if before.get(str(path)) == _MINE or before.get(str(path.parent)) == _MINE:
        return False
    stamp = _stamp(path)
    return stamp is not None and before.get(str(path)) != stamp


def _disable(git_dir: Path, before: dict[str, Stamp]) -> list[str]:
    done: list[str] = []
    config = git_dir / "config"
    if _changed(config, before) and (config.is_file() or config.is_symlink()):
        # git follows a link, whose target can change later where no sweep looks; it is
        # never read through (it may lead to a file the sandbox hides: a key, a token).
        unsafe = {"(a symbolic link)"} if config.is_symlink() else _unsafe_keys(config)
        if unsafe and (kept := move_aside(config)) is not None:
            _rewrite(config, kept)
            done.append(
                f"{config} set {', '.join(sorted(unsafe))}, which git outside the sandbox "
                f"would run: disabled (the original is {kept})"
            )
    for name in ("config.worktree",):
        extra = git_dir / name
        if (
            _changed(extra, before)
            and (extra.is_symlink() or (extra.is_file() and _unsafe_keys(extra)))
            and (kept := move_aside(extra)) is not None
        ):
            done.append(f"{extra} ran programs: moved to {kept}")
    hooks = git_dir / "hooks"
    if hooks.is_symlink() and _changed(hooks, before):
        if (kept := move_aside(hooks)) is not None:
            done.append(f"{hooks} was a link git outside would run hooks through: moved to {kept}")
    elif hooks.is_dir():
        moved: list[str] = []
        for entry in sorted(_listing(hooks), key=lambda e: e.name):
            if entry.name.endswith(".sample") or not _changed(Path(entry.path), before):
                continue
            target = git_dir / f"hooks{DISABLED}"
            target.mkdir(exist_ok=True)
            if _moved(Path(entry.path), _free(target / entry.name)):
                moved.append(entry.name)
        if moved:
            done.append(
                f"hooks made in {hooks} ({', '.join(moved)}) would run at git commands "
                f"outside the sandbox: moved to {git_dir / f'hooks{DISABLED}'}"
            )
    return done


def _entries(config: Path) -> list[tuple[str, str]] | None:
    """The (key, value) pairs of a config file, None when git cannot read it. `--file` reads
    that file only, and no include is followed: reading it runs nothing."""
    git = shutil.which("git")
    if git is None or read_regular_file(config, 1 << 20) is None:
        return None  # a fifo or a device (through a link) is never opened by git here
    try:
        done = subprocess.run(
            [git, "config", "--file", str(config), "--no-includes", "--null", "--list"],
            capture_output=True,
            timeout=10,
            check=False,
            env={"PATH": os.environ.get("PATH", ""), "GIT_CONFIG_NOSYSTEM": "1"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    pairs: list[tuple[str, str]] = []
    for record in done.stdout.decode("utf-8", "replace").split("\0"):
        if record:
            key, _, value = record.partition("\n")
            pairs.append((key, value))
    return pairs


def _unsafe_keys(config: Path) -> set[str]:
    entries = _entries(config)
    if entries is None:
        return {"(a config git cannot read)"}
    return {
        key
        for key, value in entries
        if not SAFE_KEYS.fullmatch(key) and value.lower() not in SAFE_VALUES.get(key.lower(), ())
    }


def _rewrite(config: Path, original: Path) -> None:
    """`config` again with the safe entries of `original` only."""
    entries = [] if original.is_symlink() else _entries(original) or []
    config.write_text("")
    git = shutil.which("git") or "git"
    for key, value in entries:
        safe = SAFE_KEYS.fullmatch(key) or value.lower() in SAFE_VALUES.get(key.lower(), ())
        if safe:
            subprocess.run(
                [git, "config", "--file", str(config), "--add", key, value],
                capture_output=True,
                timeout=10,
                check=False,
            )


def move_aside(path: Path) -> Path | None:
    """`path` moved to a free `<name>.tether-disabled`: where it went, or None when it was
    gone already (another process removed it between the check and the move: another
    session's placeholder, a command still running)."""
    target = _free(path.with_name(path.name + DISABLED))
    return target if _moved(path, target) else None


def _moved(path: Path, target: Path) -> bool:
    """Move `path` to `target`; False when `path` is gone (nothing left to disable)."""
    try:
        os.replace(path, target)
    except FileNotFoundError:
        if os.path.lexists(path):
            raise  # the target's directory went: not a file that vanished
        return False
    return True


def _listing(directory: Path) -> list[os.DirEntry[str]]:
    """The entries of `directory`; none when it is gone (removed since it was checked)."""
    try:
        return list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _free(path: Path) -> Path:
    """`path`, or `path.N` for the first N free."""
    candidate, n = path, 1
    while os.path.lexists(candidate):
        candidate = path.with_name(f"{path.name}.{n}")
        n += 1
    return candidate
