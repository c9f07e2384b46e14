"""Where the git (and Mercurial) directories under the writable roots are, for the sweep
(`git_sweep.py`): a walk of the roots, each directory's listing kept while its mtime stays.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tether.sandbox.gitlinks import Kept, gitlink_paths
from tether.sandbox.hg_sweep import related_hg_dirs
from tether.sandbox.protected import (
    common_dirs,
    gitdir_pointer,
    linked_worktree_dirs,
    submodule_git_dirs,
)

MAX_ENTRIES = 1_000_000
"""The walk stops after this many directory entries listed (an unchanged directory's kept
listing counts one): repositories past it are not looked for, so the sweep is then cut and
commands are refused until it completes (`refusal.py`): fail closed."""
SKIPPED = frozenset({"node_modules", ".venv", "__pycache__", ".tox", ".mypy_cache", "target"})
"""Directories not walked into for repositories: dependencies' trees, rebuilt at will."""


Listing = tuple[int, float, tuple[str, ...], bool, bool, bool]
"""A directory's listing kept between walks: (its mtime in ns, when it was listed, its
subdirectories walked, whether it holds a `.git`, whether it is itself a git directory (a
bare repository: `HEAD`, `objects/` and `refs/`, as git recognises one), whether it holds a
`.hg`)."""

COMMON_MARKS = frozenset({"HEAD", "commondir"})
"""What makes a directory a git directory to git too: `HEAD` and a `commondir` naming where
`objects/`, `refs/` and the config are (`is_git_directory` looks for those there); its
common directory is swept with it (`_below`)."""
BARE_MARKS = frozenset({"HEAD", "objects", "refs"})
"""What makes a directory a git directory to git (`is_git_directory`): a bare repository,
which git run there (`git log`, with `safe.bareRepository` at its default) reads the config
of (`core.pager`, aliases, hooks)."""


def repositories(
    roots: tuple[Path, ...],
    cache: dict[str, Listing] | None = None,
    indexes: Kept | None = None,
    max_entries: int = MAX_ENTRIES,
    stats: dict[str, os.stat_result] | None = None,
) -> tuple[list[Path], list[Path], str | None]:
    """Every git directory under `roots`: `.git` directories, bare repositories, the targets
    of `.git` files within the roots, their submodules' (`modules/`) and linked worktrees',
    and the common directories these name; and every Mercurial `.hg` directory. `cache`:
    listings kept while a directory's mtime stays (and was over a second old when listed:
    coarse clocks), so an unchanged tree costs a `stat` a directory. `stats`: filled with each
    directory's `stat`, for the start-up file sweep that walks the same tree right after
    (`start_sweep.py`): one `stat` a directory for both."""
    found: list[Path] = []
    hg: list[Path] = []
    work_trees: list[str] = []
    budget = max_entries
    pending = [str(r) for r in roots if r.is_dir()]
    seen: set[str] = set()
    while pending and budget > 0:
        directory = pending.pop()
        if directory in seen:
            continue
        seen.add(directory)
        try:
            info = os.stat(directory, follow_symlinks=False)
        except OSError:
            continue
        mtime = info.st_mtime_ns
        if stats is not None:
            stats[directory] = info
        kept = None if cache is None else cache.get(directory)
        if kept is not None and kept[0] == mtime and kept[1] - mtime / 1e9 > 1.0:
            _, _, subdirs, has_git, bare, has_hg = kept
            budget -= 1
        else:
            listed_at = time.time()
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            budget -= len(entries)
            names = {e.name for e in entries}
            has_git = ".git" in names
            has_hg = ".hg" in names
            bare = names >= BARE_MARKS or names >= COMMON_MARKS
            subdirs = tuple(
                e.name
                for e in entries
                if e.name not in (".git", ".hg")
                and e.name not in SKIPPED
                and e.is_dir(follow_symlinks=False)
            )
            if cache is not None:
                cache[directory] = (mtime, listed_at, subdirs, has_git, bare, has_hg)
        if has_git:
            found += _from_dot_git(Path(directory, ".git"), roots)
            work_trees.append(directory)
        if bare:
            # Walked below all the same, its object store too (a few hundred directories,
            # listed again only when changed): a command can make a directory look bare to
            # hide a repository under it.
            found.append(Path(directory))
        if has_hg and os.path.isdir(os.path.join(directory, ".hg")):
            hg.append(Path(directory, ".hg"))
        pending += [os.path.join(directory, name) for name in subdirs]
        if not pending and work_trees and indexes is not None:
            # Where the indexes' gitlinks lead, in directories the walk skips: walked too.
            for tree in work_trees:
                for git_dir in _from_dot_git(Path(tree, ".git"), roots):
                    pending += [
                        str(p)
                        for p in gitlink_paths(git_dir, Path(tree), indexes)
                        if any(p.is_relative_to(r) for r in roots) and str(p) not in seen
                    ]
            work_trees = []
    cut = None
    if budget <= 0 and (pending or work_trees):
        where = pending[-1] if pending else "the gitlinks of " + work_trees[-1]
        cut = (
            f"The sandbox's sweep for git and Mercurial configuration made by commands stopped "
            f"at its bound of {max_entries} entries, in {where}: a repository past it "
            "would not be disabled before a git or hg outside runs its programs, so commands "
            "are not run (fail closed) until a sweep completes."
        )
    more: list[Path] = []
    for git_dir in found:
        below = _below(git_dir)
        more += below + [c for d in below for c in common_dirs(d)]
    return list(dict.fromkeys(found + more)), _with_related(hg, roots), cut


def _with_related(hg: list[Path], roots: tuple[Path, ...]) -> list[Path]:
    """`hg` and the repositories whose config hg reads from theirs (share sources,
    subrepositories, `hg_sweep.related_hg_dirs`), within `roots`, however deep they lead."""
    found = dict.fromkeys(hg)
    pending = list(hg)
    while pending and len(found) < MAX_HG_DIRS:
        for related in related_hg_dirs(pending.pop()):
            if related not in found and any(related.is_relative_to(r) for r in roots):
                found[related] = None
                pending.append(related)
    return list(found)


MAX_HG_DIRS = 10_000
"""Mercurial repositories followed from others at most (a loop of shares ends anyway)."""


def _from_dot_git(dot_git: Path, roots: tuple[Path, ...]) -> list[Path]:
    """The git directory a work tree's `.git` leads git to, within `roots`: itself, what a
    symlink there leads to (git follows it, into a skipped `node_modules` too), or what a
    `.git` file (through a link or not) points at."""
    if dot_git.is_dir() and not dot_git.is_symlink():
        return [dot_git]
    if dot_git.is_dir():
        target = _resolved(dot_git)
    else:
        target = gitdir_pointer(dot_git) if dot_git.is_file() else None
    return [target] if target is not None and any(target.is_relative_to(r) for r in roots) else []


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python before 3.13)
        return None


def _below(git_dir: Path) -> list[Path]:
    """Submodules' and linked worktrees' git directories, and a `commondir` target: the
    protected paths' own reading of them, so that a placeholder they make (a missing
    `config`) changes nothing here."""
    return [
        *submodule_git_dirs(git_dir / "modules"),
        *linked_worktree_dirs(git_dir / "worktrees"),
        *common_dirs(git_dir),
    ]
