"""Placeholders: what keeps a missing protected path from being created inside the sandbox.

A bind mount needs something to mount on, so for a protected path that does not exist tether
creates an empty directory there (the placeholder; a file only for git's own files inside a
git directory), and the sandbox mounts it read-only onto itself: inside, the path exists and
cannot be written, removed or renamed (it is a mount point), and git, which never tracks an
empty directory, sees nothing to add or to show. After the command the placeholder is removed
if it is still what tether made (same inode, still empty), so nothing is left behind.

Removing a placeholder while another sandbox still has it mounted would detach that mount
and lift the protection there, so removal waits until no sandbox of this workspace runs, in
this process or any other: every command holds a shared `flock` on the workspace's lock file
from before its placeholders are made until its sandbox ends (the descriptor is handed to
bwrap as `--sync-fd`, which its init process keeps and the command never sees), and removal
takes the lock exclusively, without waiting. Whoever ends last removes them.

Every placeholder made is written down first in the workspace's journal (beside the lock),
so whoever removes them removes those of every process, and a tether that was killed leaves
a record the next one clears at its start (`remove_unused`). Where the journal is gone (after
a reboot, when it lives in /dev/shm), the `user.tether-sandbox-placeholder` attribute still
marks a placeholder, where the file system keeps user attributes (`remove_stale`).

Placeholders are made and removed by descriptor (`ensure`, `_remove_if_as_made`): a command
running in another sandbox meanwhile may swap any directory it can write for a symlink, and
nothing made or removed by path through it may land elsewhere.

The lock files and journals live in tether's private sandbox directory, out of the sandbox's
sight.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import stat
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tether.sandbox.protected import Protected

MARK = "user.tether-sandbox-placeholder"
"""Extended attribute set on each placeholder, so that another tether process can tell one
from a real file the user made (where the file system keeps user attributes)."""


SHARED_MEMORY = Path("/dev/shm")


def private_dir() -> Path:
    """tether's per-user directory for sandbox state (lock files), the same for every tether
    process of the user. In /dev/shm where there is one (sandboxes get a fresh /dev, so it is
    out of their sight), else in the temporary directory (and then hidden inside). If that
    place is someone else's, a directory of this process's own (locks then shared by none)."""
    global _private
    if _private is not None:
        return _private
    parent = SHARED_MEMORY if SHARED_MEMORY.is_dir() else Path(tempfile.gettempdir())
    path = parent / f"tether-sandbox-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        # Not a place to keep locks that decide on deletions.
        path = Path(tempfile.mkdtemp(prefix="tether-sandbox-"))
    _private = path
    return path


_private: Path | None = None


@dataclass(frozen=True)
class _Made:
    path: Path
    directory: bool
    content: bytes
    identity: tuple[int, int]

    def line(self) -> bytes:
        record = {
            "path": os.fsdecode(self.path),
            "directory": self.directory,
            "content": self.content.hex(),
            "identity": list(self.identity),
        }
        return (json.dumps(record) + "\n").encode()


@dataclass
class Placeholders:
    """The placeholders of one workspace, the lock that guards them and their journal."""

    lock_file: Path
    _mutex: threading.Lock = field(default_factory=threading.Lock)

    @property
    def journal(self) -> Path:
        return self.lock_file.with_suffix(".placeholders")

    def hold(self) -> int:
        """A descriptor holding the shared lock: placeholders made from now on stay until it
        and every copy of it (bwrap's) are closed."""
        fd = os.open(self.lock_file, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_SH)
        return fd

    def ensure(self, path: Path, entry: Protected) -> bool:
        """Make a placeholder at `path` (and at its missing parents, directories) if nothing
        is there; True if it was made. Call it holding the lock (`hold`).

        Made by descriptor all the way: the existing directories are reached from `/` without
        following a symlink, and each new entry is made relative to the descriptor of the one
        before it. A command running meanwhile (a background one, in another sandbox) that
        swaps a directory on the way for a link cannot make a placeholder land elsewhere."""
        with self._mutex:
            content = b"" if entry.directory else (entry.placeholder or "").encode()
            parts = path.parts
            if not path.is_absolute() or any(p in (".", "..") for p in parts):
                return False
            fds: list[int] = []
            try:
                fds.append(os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
                depth = 1
                while depth < len(parts):
                    try:
                        fd = os.open(parts[depth], _REACH, dir_fd=fds[-1])
                    except FileNotFoundError:
                        break
                    fds.append(fd)
                    if depth == len(parts) - 1 or not stat.S_ISDIR(os.fstat(fd).st_mode):
                        return False  # there already, or a link or file on the way
                    depth += 1
                for index in range(depth, len(parts)):
                    last = index == len(parts) - 1
                    fds.append(
                        self._make(
                            Path(*parts[: index + 1]),
                            fds[-1],
                            entry.directory or not last,
                            content if last else b"",
                        )
                    )
            except OSError:
                return False
            finally:
                for fd in fds:
                    os.close(fd)
            return True

    def remove_unused(self, *, just_ended: bool = False, stale: Iterable[Path] = ()) -> None:
        """Remove the placeholders in the journal that are still as made (whichever tether
        process made them), unless some sandbox of the workspace runs; and the paths of
        `stale` that are marked placeholders, still empty.

        `just_ended`: a sandbox has just reported its command's end. Its init process, which
        holds the lock, ends a moment after; a few short retries let it go."""
        try:
            fd = os.open(self.lock_file, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            return
        try:
            if not _lock_exclusively(fd, retries=_RETRIES if just_ended else 0):
                return
            with self._mutex:
                made = self._journalled() + [m for m in map(_marked, stale) if m is not None]
                for each in sorted(made, key=lambda m: -len(m.path.parts)):
                    _remove_if_as_made(each)
                # Nothing runs, so nothing can be in the journal that is still needed.
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.journal)
        finally:
            os.close(fd)

    def _make(self, path: Path, parent: int, directory: bool, content: bytes) -> int:
        """Make `path` in the directory `parent` (a descriptor of it), mark it and write it in
        the journal; its descriptor."""
        name = path.name
        if directory:
            os.mkdir(name, 0o755, dir_fd=parent)
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=parent)
        else:
            fd = os.open(
                name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=parent
            )
            try:
                os.write(fd, content)
            except OSError:
                os.close(fd)
                raise
        try:
            with contextlib.suppress(OSError):
                os.setxattr(fd, MARK, b"1")
            info = os.fstat(fd)
            made = _Made(path, directory, content, (info.st_dev, info.st_ino))
            # One write of one line with O_APPEND: lines of parallel writers do not mix.
            journal = os.open(
                self.journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600
            )
            try:
                os.write(journal, made.line())
            finally:
                os.close(journal)
        except OSError:
            os.close(fd)
            raise
        return fd

    def _journalled(self) -> list[_Made]:
        try:
            lines = self.journal.read_bytes().splitlines()
        except OSError:
            return []
        found: list[_Made] = []
        for line in lines:
            try:
                record = json.loads(line)
                dev, ino = record["identity"]
                found.append(
                    _Made(
                        Path(record["path"]),
                        bool(record["directory"]),
                        bytes.fromhex(record["content"]),
                        (int(dev), int(ino)),
                    )
                )
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a kill: nothing was made after it
        return found


def _marked(path: Path) -> _Made | None:
    """A placeholder without a journal entry, known by its mark: only an empty directory."""
    parent = _reach_directory(path.parent)
    if parent is None:
        return None
    try:
        fd = os.open(path.name, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=parent)
    except OSError:
        return None
    finally:
        os.close(parent)
    try:
        if os.getxattr(fd, MARK) != b"1":
            return None
        info = os.fstat(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return _Made(path, True, b"", (info.st_dev, info.st_ino))


def _reach_directory(path: Path) -> int | None:
    """An `O_PATH` descriptor of the directory `path`, reached from `/` without following a
    symlink; None if a component is missing, a link or not a directory."""
    if not path.is_absolute() or any(p in (".", "..") for p in path.parts):
        return None
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    for name in path.parts[1:]:
        try:
            child = os.open(name, _REACH, dir_fd=fd)
        except OSError:
            child = -1
        finally:
            os.close(fd)
        if child < 0:
            return None
        if not stat.S_ISDIR(os.fstat(child).st_mode):
            os.close(child)
            return None
        fd = child
    return fd


_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_REACH = os.O_PATH | _NOFOLLOW
"""An existing entry, opened as itself (a symlink too, which `fstat` then shows)."""

_RETRIES = 9
"""Waits of 1, 2, 4... ms (about half a second in all) for a sandbox's init to end."""


def _lock_exclusively(fd: int, *, retries: int) -> bool:
    for attempt in range(retries + 1):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if attempt < retries:
                time.sleep(0.001 * 2**attempt)
    return False


def _remove_if_as_made(made: _Made) -> None:
    """Remove a placeholder that is still as made (same inode, still empty or with the content
    it was given), by descriptor: reached without a link, removed in its very directory."""
    parent = _reach_directory(made.path.parent)
    if parent is None:
        return
    name = made.path.name
    try:
        if _still_as_made(made, parent):
            (os.rmdir if made.directory else os.unlink)(name, dir_fd=parent)
    except OSError:
        pass
    finally:
        os.close(parent)


def _still_as_made(made: _Made, parent: int) -> bool:
    name = made.path.name
    info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if (info.st_dev, info.st_ino) != made.identity:
        return False
    if made.directory:
        if not stat.S_ISDIR(info.st_mode):
            return False
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=parent)
        try:
            with os.scandir(fd) as entries:
                return not any(entries)
        finally:
            os.close(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size != len(made.content):
        return False
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW, dir_fd=parent)
    try:
        return os.fstat(fd).st_ino == info.st_ino and os.read(fd, len(made.content) + 1) == (
            made.content
        )
    finally:
        os.close(fd)


_registry: dict[Path, Placeholders] = {}
_registry_mutex = threading.Lock()


def placeholders_for(workspace: Path) -> Placeholders:
    """The process's placeholders of `workspace` (one object per workspace, shared by every
    sandbox of it, so that parallel commands agree on what is theirs)."""
    with _registry_mutex:
        found = _registry.get(workspace)
        if found is None:
            digest = hashlib.sha256(os.fsencode(workspace)).hexdigest()[:32]
            found = _registry[workspace] = Placeholders(private_dir() / f"{digest}.lock")
        return found


def remove_all_unused() -> None:
    """At exit: whatever placeholders no sandbox uses any more (see `atexit` in bwrap.py)."""
    with _registry_mutex:
        every = list(_registry.values())
    for placeholders in every:
        placeholders.remove_unused()
