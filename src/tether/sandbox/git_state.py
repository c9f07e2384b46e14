"""git's in-progress state that runs programs at the user's next git command outside: the
`exec` lines of a stopped rebase's or cherry-pick's todo, stripped when a command added them.

A command can leave an interactive rebase stopped (`break`, a conflict) and append `exec ...`
lines to `.git/rebase-merge/git-rebase-todo`; `git status` outside tells the user to run `git
rebase --continue`, which runs them, unsandboxed. The state directories stay writable (a
rebase inside must work), so after each command the todos of the session's repositories
(`rebase-merge/git-rebase-todo`, `sequencer/todo`, in the common git directory and each
linked worktree's) are read, and an `exec` (`x`) line that was not there at the session's
first command (the user's own stopped rebase keeps its lines) is removed; the todo as the
command left it is kept beside it, `git-rebase-todo.tether-disabled` (git never reads it),
and the model is told. The rest of the rebase (picks, merges, the stopped state) is left:
`git rebase --continue` goes on without the commands. A state directory or todo that is a
symbolic link is moved aside whole. Every step is made relative to a descriptor of the state
directory reached without following a link, so nothing outside it is written.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from tether.sandbox.git_sweep import DISABLED, move_aside
from tether.sandbox.nofollow import open_directory
from tether.slotted import Slotted

TODOS = (("rebase-merge", "git-rebase-todo"), ("sequencer", "todo"))
"""(state directory, todo file) of git's sequencer: interactive rebase, cherry-pick, revert."""
MAX_TODO = 16 * 1024 * 1024
_EXEC = re.compile(rb"^[ \t]*(exec|x)([ \t]|$)")


def _exec_lines(data: bytes) -> Counter[bytes]:
    return Counter(line.strip() for line in data.split(b"\n") if _EXEC.match(line))


def read_at(directory: int, name: str, limit: int = MAX_TODO + 1) -> bytes | None:
    """The bytes of the regular file `name` in `directory` (a descriptor), never through a
    link; None for anything else."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
    except OSError:
        return None
    try:
        return os.read(fd, limit) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)


def read_state(state: Path, name: str, limit: int = MAX_TODO + 1) -> bytes | None:
    """`read_at` of `name` in the directory `state`, opened without following a link; None
    when either is not there as such."""
    directory = open_directory(state)
    if directory is None:
        return None
    try:
        return read_at(directory, name, limit)
    finally:
        os.close(directory)


def git_dirs(commons: Iterable[Path]) -> list[Path]:
    """The git directories `commons` and their linked worktrees' own (not through a link)."""
    found: list[Path] = []
    for common in commons:
        common = Path(os.path.realpath(common))
        found.append(common)
        with contextlib.suppress(OSError):
            entries = os.scandir(common / "worktrees")
            found += [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
    return list(dict.fromkeys(found))


class SequencerTodos(Slotted):
    """A session's view of its repositories' sequencer todos."""

    __slots__ = ("allowed", "recorded")
    allowed: dict[str, Counter[bytes]]
    """Per todo path: its `exec` lines at the session's first command (the user's)."""
    recorded: bool

    def __init__(
        self, allowed: dict[str, Counter[bytes]] | None = None, recorded: bool = False
    ) -> None:
        self.allowed = {} if allowed is None else allowed
        self.recorded = recorded

    def record(self, git_dirs: Iterable[Path]) -> None:
        if self.recorded:
            return
        self.recorded = True
        for git_dir in git_dirs:
            for state, todo in TODOS:
                if (data := read_state(git_dir / state, todo)) is not None:
                    self.allowed[os.fspath(git_dir / state / todo)] = _exec_lines(data)

    def sweep(self, git_dirs: Iterable[Path]) -> list[str]:
        """Strip the `exec` lines commands added; what was done, for the model."""
        told: list[str] = []
        for git_dir in git_dirs:
            for state, todo in TODOS:
                with contextlib.suppress(OSError):
                    if (note := self._strip(git_dir / state, todo)) is not None:
                        told.append(note)
        return told

    def _strip(self, state: Path, todo: str) -> str | None:
        if not os.path.lexists(state):
            return None
        directory = open_directory(state)
        if directory is None:  # a link (or a file) where git keeps its state: not git's
            target = move_aside(state)
            return None if target is None else _note(state, target)
        try:
            data = read_at(directory, todo)
            if data is None:
                if not os.path.lexists(state / todo):
                    return None
                target = move_aside(state / todo)  # a link: git would follow it
                return None if target is None else _note(state / todo, target)
            allowed = Counter(self.allowed.get(os.fspath(state / todo), Counter[bytes]()))
            kept: list[bytes] = []
            dropped = 0
            for line in data.split(b"\n"):
                if _EXEC.match(line):
                    if allowed[line.strip()] <= 0:
                        dropped += 1
                        continue
                    allowed[line.strip()] -= 1
                kept.append(line)
            if not dropped:
                return None
            aside = replace_at(directory, todo, b"\n".join(kept))
            return (
                f"removed {dropped} exec line(s) a command added to {state / todo} (git would "
                f"run them outside the sandbox at the next --continue; as the command left "
                f"it: {state / aside})"
            )
        finally:
            os.close(directory)


def replace_at(directory: int, name: str, data: bytes | None) -> str:
    """Move `name` in `directory` aside (`*.tether-disabled`) and write `data` in its place,
    with its mode and owner (None: nothing in its place); the name it was moved to."""
    aside = free_name(directory, name + DISABLED)
    info = os.stat(name, dir_fd=directory, follow_symlinks=False)
    os.rename(name, aside, src_dir_fd=directory, dst_dir_fd=directory)
    if data is None:
        return aside
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(name, flags, info.st_mode & 0o777, dir_fd=directory)
    try:
        os.write(fd, data)
        if (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
            with contextlib.suppress(OSError):
                os.fchown(fd, info.st_uid, info.st_gid)
    finally:
        os.close(fd)
    return aside


def free_name(directory: int, name: str) -> str:
    candidate, n = name, 1
    while True:
        try:
            os.stat(candidate, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            return candidate
        candidate, n = f"{name}.{n}", n + 1


def _note(path: Path, target: Path) -> str:
    return f"moved aside {path}, a link where git keeps a rebase's state (now {target.name})"
