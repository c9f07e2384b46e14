"""The git commands that read or change a repository's worktree records, one at a time per
repository, and a half-made record of a git outside tether waited out.

`git worktree add` makes `.git/worktrees/<id>` and its files one after the other: for a moment
its `commondir` exists, empty. Every git that lists the worktrees then (`worktree add`, `list`,
`lock`, `unlock`, `remove`, `branch -D`, which looks for the branch checked out elsewhere)
stops with `fatal: failed to read .git/worktrees/<id>/commondir: Success`. Two workers making
their tasks' worktrees at once hit it. So each such command runs holding a file lock of the
repository's own (`LOCK_NAME` in its common git directory), for that command only: no other
lock is taken while it is held (the per-task `guarded` is taken before, never inside), so it
cannot deadlock. A git run outside tether (the user's, a WorktreeCreate hook's) does not take
it: a failure that names a half-made record is tried again for a while (`RETRY_S`).

Worktree records are per machine (their paths are this machine's): processes on other hosts
never share them, so a lock of this machine is enough.
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "tether-worktrees.lock"
"""In the repository's common git directory (`.git` of the main worktree)."""

RETRY_S = 5.0
"""How long a half-made worktree record (of a git outside tether) is waited for: its git
writes the missing file within milliseconds; a record left half-made by a killed git stays
so, and the command then fails with git's words."""

_RECORDS_BRANCH_OPTIONS = frozenset(
    {"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-f", "--force"}
)
"""`git branch` options that check where the branch is checked out: they read every record."""

_HALF_MADE = re.compile(r"failed to read .*worktrees/[^/\s]+/(commondir|gitdir)")


def reads_records(args: Sequence[str]) -> bool:
    """Whether the git command `args` (its subcommand first, global options before it allowed)
    reads or changes the repository's worktree records."""
    rest = _after_global_options(args)
    if not rest:
        return False
    if rest[0] == "worktree":
        return True
    return rest[0] == "branch" and any(a in _RECORDS_BRANCH_OPTIONS for a in rest[1:])


def half_made(stderr: str) -> bool:
    """Whether git failed on a worktree record another git is still writing."""
    return _HALF_MADE.search(stderr) is not None


def run_on_records(
    cwd: Path, run: Callable[[], subprocess.CompletedProcess[str]], timeout_s: float
) -> subprocess.CompletedProcess[str]:
    """`run` (a git command in `cwd` that reads the worktree records) under the repository's
    lock, tried again while it fails on a half-made record of a git outside tether."""
    with records_locked(cwd, timeout_s):
        deadline = time.monotonic() + RETRY_S
        pause = 0.01
        while True:
            done = run()
            if done.returncode == 0 or not half_made(done.stderr):
                return done
            if time.monotonic() > deadline:
                return done
            time.sleep(pause)
            pause = min(pause * 2, 0.2)


class RecordsLockError(Exception):
    """The repository's worktree lock could not be had: held too long (by a paused process,
    say), or no repository at `cwd`."""


@contextmanager
def records_locked(cwd: Path, timeout_s: float) -> Generator[None]:
    """The repository's worktree lock, held for the block (a single git command). A repository
    whose git directory cannot be written (read-only: no worktree can be made in it) is read
    without it."""
    path = lock_file(cwd)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        fd = None
    if fd is None:
        yield
        return
    try:
        if not flock_by(fd, time.monotonic() + timeout_s):
            raise RecordsLockError(
                f"the repository's worktree records stayed busy for {timeout_s:g} s "
                f"(another process holds {path}, perhaps a paused one)"
            )
        yield
    finally:
        os.close(fd)  # releases the lock


def lock_file(cwd: Path) -> Path:
    """The lock file of the repository holding `cwd` (in a main or a linked worktree): in its
    common git directory, found from the `.git` nearest above (a linked worktree's is a file
    naming its own git directory, whose `commondir` names the common one)."""
    if not cwd.is_dir():
        raise RecordsLockError("the directory does not exist (removed meanwhile?)")
    for top in (cwd, *cwd.parents):
        dot_git = top / ".git"
        if dot_git.is_dir():
            return dot_git / LOCK_NAME
        if dot_git.is_file():
            return _common_dir(dot_git) / LOCK_NAME
    raise RecordsLockError(f"{cwd} is not in a git repository")


def _common_dir(dot_git: Path) -> Path:
    try:
        first = dot_git.read_text(encoding="utf-8").splitlines()[0]
        own = dot_git.parent / first.removeprefix("gitdir:").strip()
        commondir = own / "commondir"
        if not commondir.exists():
            return own  # a submodule's: its own git directory is the common one
        return (own / commondir.read_text(encoding="utf-8").strip()).resolve()
    except (OSError, IndexError) as e:
        raise RecordsLockError(f"cannot read {dot_git}: {e}") from e


def flock_by(fd: int, deadline: float) -> bool:
    """Lock `fd` exclusively by `deadline` (`time.monotonic`); whether it was had. Polled: a
    waiting `flock` cannot be given a timeout, and a paused holder would hold it for ever."""
    pause = 0.002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


def _after_global_options(args: Sequence[str]) -> Sequence[str]:
    """`args` from the subcommand on: git's global options (`-c x=y`, `--no-pager`) skipped."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-c", "-C") else 1
    return args[i:]
