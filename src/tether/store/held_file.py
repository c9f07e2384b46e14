"""A session file held open for appending, whole lines only, and kept the session's.

The file is locked (`flock`) for as long as it is held: a second process that wants to
continue the same session is told (`SessionInUse`) instead of mixing its entries into the
file. The kernel drops the lock when the process ends, however it ends.

Before each write the file at its path must be the one held open (same device and inode). A
file removed or moved away by hand is written again at its path, whole (read back from the
open descriptor); a file replaced by another is left alone and the session goes on in a new
one (a copy, then a fork entry naming the old id, written by `_forked`). A file cut short is
said. Each of these is told in `notices`.
"""

from __future__ import annotations

import errno
import os
import uuid
from pathlib import Path
from types import TracebackType
from typing import Self

from tether.protocol import HarnessError
from tether.store.partial import (
    MOVING_SUFFIX,
    copy_whole,
    partial_path,
    put_in_place,
    remove_abandoned,
)
from tether.store.session_lock import lock_session_file
from tether.store.write_errors import why_not_written

APPEND = os.O_RDWR | os.O_APPEND | os.O_CREAT
"""How a session file is opened: read as well as appended, since a file removed by hand is
copied back from the descriptor."""


class HeldFile:
    """One session file held open and locked; `_write` hands the OS one whole line at a time.
    A subclass writes the fork entry (`_forked`) when the file had to move to a new session."""

    def __init__(self, path: Path, fd: int, *, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._fd: int | None = fd
        self._torn = False  # the file ends inside a line: start the next entry on a new one
        opened = os.fstat(fd)
        self._place = (opened.st_dev, opened.st_ino)
        self._end = opened.st_size  # where our last write ended: a smaller file was cut
        self.notices: list[str] = []
        """What happened to the file that the user should hear (it was removed, replaced or
        cut short by something else), oldest first; the owner takes them out."""

    def close(self) -> None:
        """Sync the file to disk and close it; later calls do nothing."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.fsync(fd)
        except OSError as e:
            if e.errno != errno.EINVAL:  # EINVAL: a file that cannot be synced, like /dev/null
                raise HarnessError(f"cannot save session file {self.path}: {e.strerror}") from e
        finally:
            os.close(fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def _write(self, data: bytes) -> None:
        if self._fd is None:
            raise ValueError(f"session file {self.path} is closed")
        self._keep_place()
        if self._torn:
            data = b"\n" + data
        written = 0
        try:
            while written < len(data):
                written += os.write(self._fd, memoryview(data)[written:])
        except OSError as e:
            if written and not self._take_back(written):
                self._torn = True
            raise HarnessError(
                f"could not save the session to {self.path}: {why_not_written(e, self.path)}"
            ) from e
        self._torn = False
        self._end += written

    def _keep_place(self) -> None:
        """Make sure the next write goes to the session's file (see the module's doc)."""
        assert self._fd is not None
        held = os.fstat(self._fd)
        try:
            there: os.stat_result | None = os.stat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            there = None
        except OSError:
            return  # cannot look (a directory we may not search): write where we are
        if there is not None and (there.st_dev, there.st_ino) == self._place:
            if held.st_size < self._end:
                self.notices.append(
                    f"session file {self.path} was cut short by another program "
                    f"({self._end - held.st_size:,} bytes gone); the session goes on saving, "
                    "but a resume starts where the file now does"
                )
            self._end = held.st_size
            return
        if there is None:
            self._move(self.path, self.session_id)
            self.notices.append(
                f"session file {self.path} was removed or moved away while the session ran; "
                "it was written again there, whole, and the session goes on saving to it"
            )
            return
        old_path, old_id = self.path, self.session_id
        new_id = str(uuid.uuid4())
        self._move(old_path.with_name(f"{new_id}.jsonl"), new_id)
        self._forked(old_id)
        self.notices.append(
            f"session file {old_path} was replaced by another file while the session ran; "
            f"that file is left as it is, and the session goes on as {new_id} "
            f"({self.path}), which holds all of it"
        )

    def _move(self, path: Path, session_id: str) -> None:
        """Go on in a new file at `path`, which starts as a copy of the one held open. The copy
        is written under a hidden name and linked to `path` once whole (see `partial`)."""
        assert self._fd is not None
        old = self._fd
        size = os.fstat(old).st_size
        partial = partial_path(path, MOVING_SUFFIX)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            remove_abandoned(path.parent)
            fd = os.open(partial, APPEND | os.O_EXCL, 0o600)
        except OSError as e:
            raise HarnessError(
                f"could not save the session: {self.path} is no longer its file, and {path} "
                f"cannot be created: {why_not_written(e, path)}"
            ) from e
        try:
            lock_session_file(fd, partial)
            ends_line = copy_whole(old, size, fd)
            put_in_place(partial, path)
        except (OSError, HarnessError) as e:
            os.close(fd)
            partial.unlink(missing_ok=True)
            if isinstance(e, HarnessError):
                raise
            if isinstance(e, FileExistsError):
                raise HarnessError(
                    f"could not save the session: {self.path} is no longer its file, and "
                    f"{path} was created by something else meanwhile"
                ) from e
            raise HarnessError(
                f"could not save the session to {path}: {why_not_written(e, path)}"
            ) from e
        os.close(old)
        self._fd, self.path, self.session_id = fd, path, session_id
        moved = os.fstat(fd)
        self._place, self._end = (moved.st_dev, moved.st_ino), moved.st_size
        self._torn = not ends_line

    def _take_back(self, written: int) -> bool:
        """Remove the start of a line a failed write left at the end of the file (we hold the
        lock: nobody appended after it). Whether the file ends where it did before."""
        assert self._fd is not None
        try:
            os.ftruncate(self._fd, os.fstat(self._fd).st_size - written)
        except OSError:
            return False
        return True

    def _forked(self, old_id: str) -> None:
        """Write the entry saying the session goes on from `old_id`, whose file was replaced:
        the file held is now a copy of it under a new id."""
        raise NotImplementedError
