"""What the file tools tell the model when the operating system refuses: one sentence naming
the action and the reason, raised as a `ToolError` (an `OSError` escaping a tool would be a
bug that ends the turn, and these are the model's to act on: a wrong path, a full disk)."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Generator

from tether.protocol import ToolError

_REASONS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.ENOENT: "no such file or directory",
    errno.ENOSPC: "no space left on device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EFBIG: "the file would be larger than the file system allows",
    errno.EROFS: "read-only file system",
    errno.EISDIR: "it is a directory",
    errno.ENOTDIR: "a parent of the path is not a directory",
    errno.ENAMETOOLONG: "the file name is too long",
    errno.ELOOP: "too many levels of symbolic links",
    errno.EILSEQ: "the file system does not accept this name (it is not valid in its encoding)",
    errno.ETXTBSY: "the file is a program that is running",
    errno.EBUSY: "the file or device is in use",
    errno.EIO: "an input/output error on the device",
    errno.EMFILE: "tether has too many files open",
    errno.ENFILE: "the system has too many files open",
    errno.EXDEV: "it is on another file system",
}


def describe_os_error(error: OSError, action: str) -> str:
    """A sentence the model can act on, for the failures a file operation can expect."""
    reason = _REASONS.get(error.errno or 0, error.strerror or str(error))
    return f"Could not {action}: {reason}."


@contextlib.contextmanager
def os_errors(action: str) -> Generator[None]:
    """Run a file operation on the model's behalf: an `OSError` becomes the `ToolError`
    that `describe_os_error` words ("Could not read x: permission denied.")."""
    try:
        yield
    except OSError as e:
        raise ToolError(describe_os_error(e, action)) from None
