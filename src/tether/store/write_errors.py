"""Why a write failed, said with what the user needs to act: for a full disk or quota, the
space left where the file was to go."""

from __future__ import annotations

import errno
import os
from pathlib import Path

_FULL = (errno.ENOSPC, errno.EDQUOT)


def why_not_written(error: OSError, path: Path) -> str:
    """Why a write to `path` failed; for a full disk or quota, with the space left there."""
    why = error.strerror or str(error)
    if error.errno in _FULL:
        try:
            if path.exists() and not path.is_file():
                return why  # a device (/dev/full): its file system's space says nothing
            found = os.statvfs(path.parent)
        except OSError:
            return why
        free = found.f_bavail * found.f_frsize
        why += f" ({_amount(free)} free of {_amount(found.f_blocks * found.f_frsize)} there)"
    elif error.errno == errno.EFBIG:
        why += f" ({file_size_limit()})"
    return why


def file_size_limit() -> str:
    """The limit a file this process writes may not pass (`ulimit -f`), said with its size."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    if soft == resource.RLIM_INFINITY:
        return "past the largest file this file system holds"
    return f"the file size limit of this process, `ulimit -f`, is {_amount(soft)}"


def too_large(error: BaseException) -> bool:
    """Whether `error` (or the OSError it was raised from) is a file past its size limit."""
    cause = _os_error(error)
    return cause is not None and cause.errno == errno.EFBIG


_NOT_WRITABLE = {
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted: the file is immutable or append-only",
    errno.EROFS: "read-only file system",
}
_REMEDIES = {
    errno.EFBIG: "raise the file size limit (`ulimit -f`)",
    errno.EACCES: "make it writable",
    errno.EPERM: "clear its immutable flag (`chattr -i`)",
    errno.EROFS: "mount its file system read-write",
    errno.ENOTDIR: "move away the file in the folder's place",
    errno.EEXIST: "give another `--session-id` (or resume that session with `--resume`)",
}
FREE_SPACE = "free space"
ID_TAKEN = _REMEDIES[errno.EEXIST]


def not_writable(error: BaseException) -> str | None:
    """Why `error` (or the OSError it was raised from) says a file cannot be written at all,
    which no free space would change: permission denied, read-only file system, immutable."""
    cause = _os_error(error)
    return None if cause is None or cause.errno is None else _NOT_WRITABLE.get(cause.errno)


def remedy(error: BaseException) -> str:
    """What lets a file that `error` kept from being written take writes again."""
    cause = _os_error(error)
    if cause is None or cause.errno is None:
        return FREE_SPACE
    return _REMEDIES.get(cause.errno, FREE_SPACE)


def _os_error(error: BaseException) -> OSError | None:
    cause = error if isinstance(error, OSError) else error.__cause__
    return cause if isinstance(cause, OSError) else None


def _amount(size: int) -> str:
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"
