"""File helpers shared by Write, Edit and Revert: reading current content, atomic replacement,
deletion and the unified diff shown to the user."""

from __future__ import annotations

import difflib
import errno
import os
import secrets
import stat
from pathlib import Path

from tether.protocol import ToolError
from tether.tools.context import FileState

_NO_NEWLINE = "\\ No newline at end of file\n"


def read_current(path: Path, shown: str) -> bytes | None:
    """The file's bytes, or None when it does not exist."""
    try:
        if path.exists() and not path.is_file():
            # Reading a FIFO or a device could block forever or never end.
            raise ToolError(f"{shown} is not a regular file; only regular files can be changed.")
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise ToolError(describe_os_error(e, f"read {shown}")) from None


def write_atomic(path: Path, data: bytes, shown: str) -> None:
    """Replace `path` with `data` so that readers see the old or the new file, never half of one.

    Parent directories are created; an existing file keeps its permission bits. The temporary
    file lives beside the target so that the final rename stays on one file system.
    """
    try:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            # mkdir's way of saying that a file sits where a parent directory should be.
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR)) from None
        try:
            mode: int | None = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = None
        temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tether-tmp")
        # 0o666 lets the umask decide a new file's mode, as any editor would.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            if mode is not None:
                os.chmod(temp, mode)
            os.replace(temp, path)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
    except OSError as e:
        message = describe_os_error(e, f"write {shown}")
        raise ToolError(f"{message} The file was not changed.") from None
    _sync_directory(path.parent)


def write_revertibly(
    files: FileState, path: Path, previous: bytes | None, data: bytes, shown: str
) -> None:
    """`write_atomic`, with `previous` (None: the file did not exist) kept for Revert; the
    snapshot is dropped again when the write fails. The new content counts as read."""
    files.push_snapshot(path, previous)
    try:
        write_atomic(path, data, shown)
    except BaseException:
        files.pop_snapshot(path)
        raise
    files.record_read(path)


def delete_file(path: Path, shown: str) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as e:
        raise ToolError(describe_os_error(e, f"delete {shown}")) from None


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


def describe_os_error(error: OSError, action: str) -> str:
    """A sentence the model can act on, for the failures a file operation can expect."""
    reasons = {
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENOSPC: "no space left on device",
        errno.EDQUOT: "disk quota exceeded",
        errno.EROFS: "read-only file system",
        errno.EISDIR: "it is a directory",
        errno.ENOTDIR: "a parent of the path is not a directory",
        errno.ENAMETOOLONG: "the file name is too long",
        errno.ELOOP: "too many levels of symbolic links",
    }
    reason = reasons.get(error.errno or 0, error.strerror or str(error))
    return f"Could not {action}: {reason}."


def decode_text(data: bytes) -> str:
    """Text that encodes back to exactly `data`: undecodable bytes survive as surrogates."""
    return data.decode("utf-8", errors="surrogateescape")


def encode_text(text: str) -> bytes:
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError as e:
        message = f"The text has characters that cannot be written as UTF-8: {e.reason}."
        raise ToolError(message) from None


def printable(text: str) -> str:
    """`text` with bytes kept by `decode_text` shown as U+FFFD, safe to display or send."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def unified_diff(old: str | None, new: str | None, shown: str) -> str:
    """A git-style unified diff; `None` on a side means the file does not exist there."""
    absolute = shown.startswith("/")
    before = "/dev/null" if old is None else (shown if absolute else f"a/{shown}")
    after = "/dev/null" if new is None else (shown if absolute else f"b/{shown}")
    old_lines = _diff_lines(printable(old or ""))
    new_lines = _diff_lines(printable(new or ""))
    return "".join(difflib.unified_diff(old_lines, new_lines, before, after))


def _diff_lines(text: str) -> list[str]:
    # str.splitlines would also split on \r, \v, \f and friends; a diff is about \n only.
    lines = text.split("\n")
    result = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        result.append(lines[-1] + "\n" + _NO_NEWLINE)
    return result


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    value = size / 1024
    for unit in ("KiB", "MiB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"
