"""Where a repository's git configuration makes git run programs from, outside `.git`: the
directory `core.hooksPath` names (a committed `.githooks/`, husky's `.husky/_`), and the
configuration files git reads besides `.git/config` (`include.path`, `includeIf`), whose
settings could name another. Writing there changes what the user's next `git commit` runs,
so the sandbox keeps them read-only and the permission engine asks before a write there.

git itself reads the configuration (`git config --list --show-origin --includes`, every
scope, conditional includes evaluated as git does), so what is found is what git will use.
The answer is kept per work tree while the files it came from are unchanged.

It sits at the bottom layer beside `home_files`, so that the sandbox and the permission engine
share it.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from tether.slotted import Slotted

_TIMEOUT_S = 10.0
_RACY_NS = 1_000_000_000
"""A file changed this close before it was read may change again without its times moving
(coarse timestamps): such an answer is not kept, as git treats racily clean entries."""
_GIT_CONFIG = ("git", "-c", "safe.directory=*")
_LIST = ("--list", "--show-origin", "--includes", "-z")
_INCLUDE = re.compile(r"include\.path|includeif\..*\.path", re.DOTALL)
_LOCATION_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")
"""Variables that would point git at another repository than the work tree's own."""


class GitRunPaths(Slotted):
    __slots__ = ("config_files", "hooks")
    hooks: Final[tuple[Path, ...]]
    """The directories `core.hooksPath` names, in every scope (git uses the last; any could
    be the one a later scope drops), absolute."""
    config_files: Final[tuple[Path, ...]]
    """The configuration files git read for this work tree, and those its includes name
    (missing ones too: a file made there is read by the next git), absolute. A relative
    `core.hooksPath` is from the top of the work tree (where git runs hooks), a relative
    include from the including file's directory."""

    def __init__(self, hooks: tuple[Path, ...] = (), config_files: tuple[Path, ...] = ()) -> None:
        self.hooks = hooks
        self.config_files = config_files


Signature = tuple[tuple[int, int, int, int] | None, ...]
_kept: dict[tuple[Path, Path | None], tuple[tuple[Path, ...], Signature, GitRunPaths]] = {}


def git_run_paths(work_tree: Path, *, home: Path | None = None) -> GitRunPaths:
    """What git's configuration for the repository holding `work_tree` (the work tree's top
    is the nearest directory up with a `.git`) runs programs from: nothing when there is no
    repository, or git cannot read it (then git runs nothing from it either)."""
    top = next((d for d in (work_tree, *work_tree.parents) if os.path.lexists(d / ".git")), None)
    if top is None:
        return GitRunPaths()
    work_tree = top
    key = (work_tree, home)
    kept = _kept.get(key)
    if kept is not None and kept[1] == _signature(kept[0]):
        return kept[2]
    started = time.time_ns()
    found, read = _read(work_tree, home)
    watched = tuple(dict.fromkeys((*_watched(work_tree, home), *read)))
    signature = _signature(watched)
    if all(s is None or max(s[2], s[3]) < started - _RACY_NS for s in signature):
        if len(_kept) > 4096:
            _kept.clear()
        _kept[key] = (watched, signature, found)
    else:
        _kept.pop(key, None)
    return found


def run_paths(roots: Iterable[Path], *, home: Path | None = None) -> tuple[Path, ...]:
    """Where the repositories of `roots` run hooks and read settings from, outside their
    `.git`: each one's hooks directories and config files, in one tuple."""
    found: list[Path] = []
    for root in roots:
        paths = git_run_paths(root, home=home)
        found += [*paths.hooks, *paths.config_files]
    return tuple(dict.fromkeys(found))


def _read(work_tree: Path, home: Path | None) -> tuple[GitRunPaths, list[Path]]:
    env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARIABLES}
    if home is not None:
        env["HOME"] = str(home)
    try:
        done = subprocess.run(
            # Reading the config runs nothing: a repository another user owns is read too
            # (git would refuse it as "dubious"; that user's own git runs its hooks).
            [*_GIT_CONFIG, "-C", str(work_tree), "config", *_LIST],
            capture_output=True,
            env=env,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return GitRunPaths(), []
    if done.returncode != 0:
        return GitRunPaths(), []
    fields = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    hooks: list[Path] = []
    files: list[Path] = []
    for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
        if not origin.startswith("file:"):
            continue  # the command line, a blob, standard input
        source = _absolute(work_tree, origin[len("file:") :])
        files.append(source)
        key, _, value = entry.partition("\n")
        if key == "core.hookspath" and value:
            hooks.append(_home_path(value, home) or Path(os.path.normpath(work_tree / value)))
        elif _INCLUDE.fullmatch(key) and value:
            # Also when missing: a file made there later is read by the next git.
            files.append(_home_path(value, home) or Path(os.path.normpath(source.parent / value)))
    unique_files = tuple(dict.fromkeys(files))
    return GitRunPaths(tuple(dict.fromkeys(hooks)), unique_files), list(unique_files)


def _home_path(value: str, home: Path | None) -> Path | None:
    """A path value starting `~/`, as git expands it (None for any other)."""
    if not (value.startswith("~/") or value == "~"):
        return None
    return Path(os.path.normpath((home if home is not None else Path.home()) / value[2:]))


def _absolute(work_tree: Path, path: str) -> Path:
    return Path(os.path.normpath(work_tree / path))


def _watched(work_tree: Path, home: Path | None) -> tuple[Path, ...]:
    """The files whose change may change the answer, besides those git read: the
    repository's configs (missing ones too, which may appear) and the user's."""
    base = home if home is not None else Path(os.environ.get("HOME", "/"))
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or base / ".config")
    return (
        work_tree / ".git",
        work_tree / ".git" / "config",
        work_tree / ".git" / "config.worktree",
        work_tree / ".git" / "commondir",
        base / ".gitconfig",
        config_home / "git" / "config",
        Path("/etc/gitconfig"),
    )


def _signature(paths: tuple[Path, ...]) -> Signature:
    """Each file's identity, size and times. A directory (`.git`) by its identity only: what
    in it changes the answer is watched by name, and its times move with every entry made in
    it (the sandbox's placeholders, git's lock files). An empty regular file, and a
    `commondir` of ".", as a missing one: git reads the same from both (the sandbox's
    placeholders for a missing `config.worktree` and `commondir` come and go between
    commands; a content written later changes the size)."""
    found: list[tuple[int, int, int, int] | None] = []
    for path in paths:
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            found.append(None)
            continue
        if stat.S_ISDIR(info.st_mode):
            found.append((info.st_ino, -1, 0, 0))
        elif stat.S_ISREG(info.st_mode) and (info.st_size == 0 or _names_itself(path, info)):
            found.append(None)
        else:
            found.append((info.st_ino, info.st_size, info.st_ctime_ns, info.st_mtime_ns))
    return tuple(found)


def _names_itself(path: Path, info: os.stat_result) -> bool:
    """A `commondir` of "." (the sandbox's placeholder): the git directory itself, as when it
    is missing."""
    if path.name != "commondir" or info.st_size > 4:
        return False
    try:  # never a fifo or a device put there meanwhile: opened without blocking, checked
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, 8).strip() == b"."
    except OSError:
        return False
    finally:
        os.close(fd)
