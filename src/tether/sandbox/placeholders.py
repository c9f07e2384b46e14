"""Placeholders: what keeps a missing protected path from being created inside the sandbox.

A bind mount needs something to mount on, so for a protected path that does not exist tether
creates an empty directory there (the placeholder; a file only for git's own files inside a
git directory), and the sandbox mounts it read-only onto itself: inside, the path exists and
cannot be written, removed or renamed (it is a mount point), and git, which never tracks an
empty directory, sees nothing to add or to show. Once no command uses it, the placeholder is
removed if it is still what tether made (same inode, still empty), so nothing is left behind.

When: not around every command. Making and removing a directory costs milliseconds on some
disks (removing one on ext4 with online discard), and a workspace with nested projects has
dozens, so placeholders stay while commands keep coming (the next command finds them there
and mounts them like any protected path) and go off the commands' path: in the background
once the workspace has had no command for `Sandbox.placeholder_linger_s`, at the session's
end, at exit, and after a kill at the next start (`remove_stale`). A command that starts
stops a removal under way after the entry it is at (`claim`), and waits for it on the lock.

Removing a placeholder while another sandbox still has it mounted would detach that mount
and lift the protection there, so removal waits until no sandbox of this workspace runs, in
this process or any other: every command holds a shared `flock` on the workspace's lock file
from before its placeholders are made until its sandbox ends (the descriptor is handed to
bwrap as `--sync-fd`, which its init process keeps and the command never sees), and removal
takes the lock exclusively, without waiting. Whoever ends last removes them.

Only a sandbox may make a removal give up, not another removal: removals take turns on a
second lock (`turn_file`), waiting for each other, before they try the first. Otherwise a
removal that found the lock taken by another one (the background removal of this process
starting a moment before a session's start, another tether's at its exit) would return with
everything still there, and what only it was asked to remove (`stale`) would stay.

Every placeholder made is written down first in the workspace's journal (beside the lock),
so whoever removes them removes those of every process, and a tether that was killed leaves
a record the next one clears at its start (`remove_unused`). Where the journal is gone (after
a reboot, when it lives in /dev/shm), the `user.tether-sandbox-placeholder` attribute still
marks a placeholder, where the file system keeps user attributes (`remove_stale`).

Placeholders are made and removed by descriptor (`ensure`, `placeholder_files.py`): a command
running in another sandbox meanwhile may swap any directory it can write for a symlink, and
nothing made or removed by path through it may land elsewhere.

The lock files and journals live in tether's private sandbox directory, out of the sandbox's
sight.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tether.file_locks import flock
from tether.sandbox.placeholder_files import (
    MARK,
    NOFOLLOW,
    REACH,
    Made,
    make_socket_file,
    marked,
    remove_if_as_made,
)
from tether.sandbox.protected import Protected

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


@dataclass(eq=False)
class Placeholders:
    """The placeholders of one workspace, the lock that guards them, their journal, and when
    they go."""

    lock_file: Path
    _mutex: threading.Lock = field(default_factory=threading.Lock)
    _timing: threading.Lock = field(default_factory=threading.Lock)
    _claims: int = 0
    """Commands started so far: a removal started before the latest one stops."""
    _running: int = 0
    """Commands of this process not yet ended (`claim` to `release`): what decides on a
    removal where the file system takes no locks, and other processes cannot be asked."""
    _pending: threading.Timer | None = None
    _stale_removals: list[threading.Thread] = field(default_factory=list[threading.Thread])
    """Removals of what a killed tether left (`remove_stale_soon`) not yet waited for."""

    @property
    def journal(self) -> Path:
        return self.lock_file.with_suffix(".placeholders")

    @property
    def turn_file(self) -> Path:
        """Held exclusively by the removal at work (in any process): the next one waits."""
        return self.lock_file.with_suffix(".removal")

    def hold(self) -> int:
        """A descriptor holding the shared lock: placeholders made from now on stay until it
        and every copy of it (bwrap's) are closed."""
        fd = _open_lock(self.lock_file)
        flock(fd, fcntl.LOCK_SH, what=_UNGUARDED)
        return fd

    def remove_stale_soon(self, stale: Callable[[], Iterable[Path]]) -> None:
        """`remove_unused(stale=stale())` on a thread of its own, off a session's start: what
        a killed tether left is cleared while the session gets ready. The next command
        (`claim`) and `remove_now` wait for it first, so that no command of this process
        starts before it is done, as when it ran at the start itself."""

        def remove() -> None:
            with contextlib.suppress(OSError):  # left in the journal for the next start
                self.remove_unused(stale=stale())

        thread = threading.Thread(target=remove, name="tether-stale-placeholders", daemon=True)
        with self._timing:
            self._stale_removals.append(thread)
        thread.start()

    def _wait_for_stale_removals(self) -> None:
        with self._timing:
            threads, self._stale_removals = self._stale_removals, []
        for thread in threads:
            thread.join()

    def claim(self) -> None:
        """A command is about to start (before `hold`): no removal starts for now, and one
        under way stops after the entry it is at (`hold` then waits for it on the lock). A
        removal of what a killed tether left (`remove_stale_soon`) is let finish first (it
        does not stop for commands: a command then finds nothing stale left)."""
        with self._timing:
            self._claims += 1
            self._running += 1
            if self._pending is not None:
                self._pending.cancel()
                self._pending = None
        self._wait_for_stale_removals()

    def release(self, linger_s: float) -> None:
        """A command has ended: once `linger_s` pass with no command started (`claim`), remove
        what no sandbox uses, in the background."""
        with self._timing:
            self._running -= 1
            if self._pending is not None:
                self._pending.cancel()
            timer = threading.Timer(linger_s, self._remove_unless_claimed, (self._claims,))
            timer.daemon = True  # exit does not wait for it: `remove_all_unused` runs then
            self._pending = timer
            timer.start()

    def remove_now(self, *, just_ended: bool) -> None:
        """Remove what no sandbox uses without lingering (a session's end, exit); a command
        that starts meanwhile still stops it. `just_ended` as for `remove_unused`."""
        self._wait_for_stale_removals()
        with self._timing:
            pending, self._pending = self._pending, None
            claims = self._claims
        if pending is not None:
            pending.cancel()  # one under way ends first: this one waits for its turn
        self._remove_unless_claimed(claims, just_ended=just_ended)

    def _remove_unless_claimed(self, claims: int, *, just_ended: bool = True) -> None:
        self.remove_unused(just_ended=just_ended, stop=lambda: self._claims != claims)

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
                        fd = os.open(parts[depth], REACH, dir_fd=fds[-1])
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
                            as_socket=last and entry.file_mask,
                        )
                    )
            except OSError:
                return False
            finally:
                for fd in fds:
                    os.close(fd)
            return True

    def remove_unused(
        self,
        *,
        just_ended: bool = False,
        stale: Iterable[Path] = (),
        stop: Callable[[], bool] = lambda: False,
    ) -> None:
        """Remove the placeholders in the journal that are still as made (whichever tether
        process made them), unless some sandbox of the workspace runs; and the paths of
        `stale` that are marked placeholders, still empty.

        `just_ended`: a sandbox has just reported its command's end. Its init process, which
        holds the lock, ends a moment after; a few short retries let it go. `stop`, asked
        between entries: a command wants to start; those not reached stay in the journal.
        Another removal at work is waited for (`turn_file`): when this returns, only a
        running sandbox or `stop` has kept placeholders."""
        try:
            turn = _open_lock(self.turn_file)
        except OSError:
            return
        try:
            flock(turn, fcntl.LOCK_EX, what=_UNGUARDED)
            self._remove_in_turn(just_ended=just_ended, stale=stale, stop=stop)
        finally:
            os.close(turn)

    def _remove_in_turn(
        self, *, just_ended: bool, stale: Iterable[Path], stop: Callable[[], bool]
    ) -> None:
        try:
            fd = _open_lock(self.lock_file)
        except OSError:
            return
        try:
            retries = _RETRIES if just_ended else 0
            if not _lock_exclusively(fd, retries=retries, stop=stop, alone=self._alone):
                return
            with self._mutex:
                made = self._journalled() + [m for m in map(marked, stale) if m is not None]
                ordered = sorted(made, key=lambda m: -len(m.path.parts))
                for index, each in enumerate(ordered):
                    if stop():
                        self._rewrite_journal(ordered[index:])
                        return
                    remove_if_as_made(each)
                # Nothing runs, so nothing can be in the journal that is still needed.
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.journal)
        finally:
            os.close(fd)

    def _alone(self) -> bool:
        """Whether no command of this process runs (all that can be known without locks)."""
        with self._timing:
            return self._running <= 0

    def _make(
        self, path: Path, parent: int, directory: bool, content: bytes, *, as_socket: bool = False
    ) -> int:
        """Make `path` in the directory `parent` (a descriptor of it), mark it and write it in
        the journal; its descriptor."""
        name = path.name
        if as_socket:
            fd = make_socket_file(name, parent)
        elif directory:
            os.mkdir(name, 0o755, dir_fd=parent)
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW, dir_fd=parent)
        else:
            fd = os.open(
                name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o644, dir_fd=parent
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
            made = Made(path, directory, content, (info.st_dev, info.st_ino), socket=as_socket)
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

    def _journalled(self) -> list[Made]:
        try:
            lines = self.journal.read_bytes().splitlines()
        except OSError:
            return []
        return [made for made in map(Made.read, lines) if made is not None]

    def _rewrite_journal(self, kept: list[Made]) -> None:
        """The journal with only `kept` (holding the lock exclusively: nobody appends)."""
        fresh = self.journal.with_suffix(".rewritten")
        with contextlib.suppress(OSError):
            fresh.write_bytes(b"".join(made.line() for made in kept))
            os.replace(fresh, self.journal)


def _open_lock(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)


_RETRIES = 9
"""Waits of 1, 2, 4... ms (about half a second in all) for a sandbox's init to end."""


_UNGUARDED = "this workspace's sandbox placeholders"


def _lock_exclusively(
    fd: int, *, retries: int, stop: Callable[[], bool], alone: Callable[[], bool]
) -> bool:
    """Whether no sandbox of the workspace runs (held exclusively until `fd` is closed).
    Where the file system takes no locks, only this process's own commands can be known of
    (`alone`)."""
    for attempt in range(retries + 1):
        if stop():
            return False
        try:
            if not flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, what=_UNGUARDED):
                return alone() and not stop()
        except BlockingIOError:
            if attempt < retries:
                time.sleep(0.001 * 2**attempt)
            continue
        if not stop():
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)  # a command is starting: it goes first
        return False
    return False


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
        # No waiting: a sandbox still running now (a background command) ends with tether.
        placeholders.remove_now(just_ended=False)
