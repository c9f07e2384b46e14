"""How Write, Edit and Revert change a file: one step that no other tether session can
interleave with, and that loses no change another program made meanwhile.

1. Lock the file's directory (an advisory `flock`, waited for without blocking the event
   loop): tether sessions changing files there take turns.
2. Read the file as it is now, and check it is the version the model saw (`FileState`).
3. Work out the new content from what is there now (Edit's replacement).
4. Write it to a temporary file beside the target, and sync it.
5. Check again, just before the rename, that the target is still the file read in step 2
   (inode, size, times): what another program wrote since is refused, not overwritten. A
   new file is linked into place, which fails if one appeared meanwhile.
6. Rename (or unlink, for a Revert of a file this session created) and sync the directory.

The temporary file is named `.<name>.<hex>.tether-tmp` and recorded in the run record
before it is made, so that one left by a killed tether is recognised and removed at the next
start (`tools.run_record`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from pathlib import Path

from tether.protocol import ToolError
from tether.tools.context import ToolContext
from tether.tools.file_state import DIGEST_LIMIT_BYTES, FileVersion, digest_of
from tether.tools.os_errors import describe_os_error, os_errors

LOCK_WAIT_S = 30.0
"""How long a change waits for another session's change in the same directory."""
TEMP_SUFFIX = ".tether-tmp"


@dataclass(frozen=True)
class Current:
    """A file as it is now: its content and status, or None for both when there is none."""

    content: bytes | None
    stat: os.stat_result | None


@dataclass(frozen=True)
class Change:
    before: bytes | None
    after: bytes | None


def read_current(path: Path, shown: str) -> Current:
    """The file's content and status. A directory, a FIFO or a device is refused without
    being read (opened non-blocking: a FIFO would otherwise wait for a writer forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return Current(None, None)
    except IsADirectoryError:
        raise ToolError(f"{shown} is a directory; give the path of a file.") from None
    except OSError as e:
        raise ToolError(describe_os_error(e, f"read {shown}")) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ToolError(f"{shown} is a directory; give the path of a file.")
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"{shown} is not a regular file; only regular files can be changed.")
        with os_errors(f"read {shown}"):
            chunks: list[bytes] = []
            while chunk := os.read(fd, max(st.st_size + 1, 1 << 16)):
                chunks.append(chunk)
        return Current(b"".join(chunks), st)
    finally:
        os.close(fd)


async def change_file(
    ctx: ToolContext,
    path: Path,
    shown: str,
    new_content: Callable[[Current], bytes | None],
    *,
    snapshot: bool,
) -> Change:
    """Change `path` to `new_content(current)` (None: delete it) in one checked step (see the
    module's docstring). An existing file must be the version the model last saw. With
    `snapshot`, what it held before is kept for Revert. Every failure is a `ToolError` and
    leaves the file as it was."""
    try:
        _make_parents(ctx, path, shown)
    except FileExistsError:
        # mkdir's way of saying that a file sits where a parent directory should be.
        raise _not_changed(NotADirectoryError(errno.ENOTDIR, "not a directory"), shown) from None
    except OSError as e:
        raise _not_changed(e, shown) from None
    async with _directory_lock(path.parent, shown):
        # From here to the end nothing awaits: in this process, nothing else runs meanwhile.
        current = read_current(path, shown)
        if current.content is not None and current.stat is not None:
            ctx.files.require_seen(path, shown, current.stat, current.content)
        data = new_content(current)
        if snapshot:
            with os_errors(f"keep a snapshot of {shown} for Revert"):
                ctx.files.snapshots.push(path, current.content)
        try:
            if data is None:
                _delete(path, shown, current.stat)
                ctx.files.forget(path)
            else:
                ctx.files.saw(path, _write(ctx, path, shown, data, current.stat))
        except BaseException:
            if snapshot:
                ctx.files.snapshots.pop(path)
            raise
    return Change(current.content, data)


def _make_parents(ctx: ToolContext, path: Path, shown: str) -> None:
    """The directories a new file needs, made one by one below the workspace (or the added
    directory) it is in, never that root itself: a root made again would be a new, empty
    folder where the user's project was (deleted, moved or renamed while the session ran),
    and the file written there would be lost to them."""
    root = next((r for r in (ctx.workspace, *ctx.extra_dirs) if path.is_relative_to(r)), None)
    if root is None:  # outside: as the approved write asks
        path.parent.mkdir(parents=True, exist_ok=True)
        return
    rel = path.parent.relative_to(root)
    below = [] if rel == Path() else [*reversed(rel.parents), rel][1:]  # a, a/b, a/b/c
    try:
        if not root.is_dir():
            raise FileNotFoundError(errno.ENOENT, "gone", str(root))
        for part in below:
            (root / part).mkdir(exist_ok=True)
    except FileNotFoundError:
        if root.is_dir():
            raise  # a directory below it went meanwhile: said as any failure
        what = "workspace" if root == ctx.workspace else "added directory"
        raise ToolError(
            f"The {what} {root} no longer exists (it was deleted, moved or renamed while the "
            f"session ran): {shown} was not written, and the {what} was not made again. Ask "
            "the user where the project is now."
        ) from None


def _not_changed(error: OSError, shown: str) -> ToolError:
    return ToolError(f"{describe_os_error(error, f'write {shown}')} The file was not changed.")


@contextlib.asynccontextmanager
async def _directory_lock(directory: Path, shown: str) -> AsyncGenerator[None]:
    """An exclusive `flock` on the directory (its inode outlives the renames inside it).
    Where the file system has no such locks, the change goes on without: the check before
    the rename still holds."""
    with os_errors(f"open the directory of {shown}"):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LOCK_WAIT_S
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if loop.time() > deadline:
                    raise ToolError(
                        f"Could not change {shown}: another process has been changing files "
                        f"in its directory for {LOCK_WAIT_S:g} s. Try again later."
                    ) from None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.05)
            except OSError:
                break  # no advisory locks here (some network file systems)
        yield
    finally:
        os.close(fd)  # which releases the lock


def _kept_mode(mode: int) -> int:
    """The replaced file's permissions without setuid and setgid, which a write by anyone but
    root clears: tether run as root must not leave a rewritten program that runs as its owner."""
    return stat.S_IMODE(mode) & ~(stat.S_ISUID | stat.S_ISGID)


def _write(
    ctx: ToolContext, path: Path, shown: str, data: bytes, expected: os.stat_result | None
) -> FileVersion:
    temp = _temp_path(path)
    try:
        if ctx.run is not None:
            ctx.run.temp_file(temp)
        # 0o666 lets the umask decide a new file's mode, as any editor would.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
                if expected is not None:
                    os.fchmod(fd, _kept_mode(expected.st_mode))
                written = os.fstat(fd)
            finally:
                os.close(fd)
            digest = digest_of(data) if len(data) <= DIGEST_LIMIT_BYTES else None
            version = FileVersion.of(written, digest)
            if expected is None:
                _link_new(temp, path, shown)
            else:
                _require_unchanged(path, shown, expected)
                os.replace(temp, path)
        finally:
            with contextlib.suppress(OSError):
                temp.unlink()  # gone after a rename; after a link, the second name
    except OSError as e:
        raise _not_changed(e, shown) from None
    _sync_directory(path.parent)
    return version


def _delete(path: Path, shown: str, expected: os.stat_result | None) -> None:
    if expected is None:
        return
    with os_errors(f"delete {shown}"):
        _require_unchanged(path, shown, expected)
        path.unlink()
    _sync_directory(path.parent)


def _temp_path(path: Path) -> Path:
    name = f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
    if len(os.fsencode(name)) > 255:  # a long name of its own would not fit
        name = f".tether-{secrets.token_hex(8)}{TEMP_SUFFIX}"
    return path.with_name(name)


def _require_unchanged(path: Path, shown: str, expected: os.stat_result) -> None:
    """The target is still the file read at the start of the change (same inode, size and
    times): checked just before it is replaced, so that what another program wrote
    meanwhile is not lost."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        raise ToolError(
            f"{shown} was deleted by another program or session while it was being changed; "
            "it was not changed. Read it again (or create it anew)."
        ) from None
    if _identity(now) != _identity(expected):
        raise ToolError(
            f"{shown} changed on disk while it was being changed (another program or session "
            "wrote it); it was not changed. Read it again and redo the change."
        )


def _identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _link_new(temp: Path, path: Path, shown: str) -> None:
    """Put a new file in place only if none appeared meanwhile: a hard link fails when the
    name is taken. Where links cannot be made, a check and a rename come closest."""
    try:
        os.link(temp, path)
        return
    except FileExistsError:
        raise ToolError(
            f"{shown} was created by another program or session while it was being written; "
            "it was not changed. Read it, then change it."
        ) from None
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
            raise
    if os.path.lexists(path):
        raise ToolError(
            f"{shown} was created by another program or session while it was being written; "
            "it was not changed. Read it, then change it."
        )
    os.replace(temp, path)


def _sync_directory(directory: Path) -> None:
    # Makes the rename durable; some file systems cannot fsync a directory, which is harmless.
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
