"""What a file holds as the headway check compares it (`headway.Headway`): a small text file by
its text with its numbers masked (a counter, a stamp rewritten is no new content), a larger one
by a digest of its bytes, a very large one by size and modification time, a directory by its
names; each read again only when `os.stat` says it changed."""

from __future__ import annotations

import hashlib
import os
import stat
import time

from tether.core.headway_look import VARYING, State, content_hash
from tether.core.headway_text import masked_words

HASHED_BYTES = 16 << 20
"""Files up to this size are compared by content; larger ones by size and modification
time (hashing them after every call would cost more than the call). A file is hashed again
only when `os.stat` says it changed (size, times, inode)."""

MASKED_BYTES = 256 << 10
"""Text files up to this size are compared with their numbers masked (a counter, a stamp,
an id rewritten is no new content); larger ones byte for byte."""

_RACY_NS = 2_000_000_000
"""A file whose modification (or status change) is this recent when it was hashed is hashed
again next time: a rewrite within the file system's clock tick leaves both times as they were."""


class FileStates:
    """The contents of the files a turn's calls named, as compared, with what `os.stat` said
    when each was last read."""

    __slots__ = ("_hashed", "_masks")

    def __init__(self) -> None:
        self._hashed: dict[str, tuple[tuple[int, int, int, int], State]] = {}
        """Per path, what `os.stat` said when it was last hashed (size, mtime, ctime, inode),
        with what it held: the same, the file is not read again."""
        self._masks: dict[str, tuple[bytes, State]] = {}
        """Per small text file, the hash of its bytes when last masked, with what it held
        masked: read again unchanged (as a file just written is, within the clock's tick),
        it is not masked again (`_content`)."""

    def read(self, path: str) -> State:
        """A path's content as compared (a directory's: its names); None when it cannot be
        read. A file whose size, times and inode are as when it was last hashed is not
        read again."""
        try:
            started = time.time_ns()
            st = os.stat(path)
            if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                return None
            stamp = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
            known = self._hashed.get(path)
            if known is not None and known[0] == stamp:
                return known[1]
            state = self._content(path, st)
            if max(st.st_mtime_ns, st.st_ctime_ns) < started - _RACY_NS:
                self._hashed[path] = (stamp, state)
            return state
        except (OSError, ValueError):
            return None

    def _content(self, path: str, st: os.stat_result) -> State:
        """What a file or directory `st` is of holds, as compared (a directory: its names; a
        small text file: its text, numbers masked, so that a counter or a stamp rewritten is no
        new content)."""
        if stat.S_ISDIR(st.st_mode):
            return (-1, content_hash("\0".join(sorted(os.listdir(path)))))
        if st.st_size > HASHED_BYTES:
            return (st.st_size, st.st_mtime_ns.to_bytes(16, "big", signed=True))
        if st.st_size > MASKED_BYTES:
            with open(path, "rb") as f:
                return (st.st_size, hashlib.file_digest(f, "blake2b").digest()[:16])
        with open(path, "rb") as f:
            data = f.read(MASKED_BYTES + 1)
        raw = content_hash(data)
        known = self._masks.get(path)
        if known is not None and known[0] == raw:
            return known[1]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return (len(data), raw)
        state: State = (-2, content_hash(masked_words(VARYING.sub("#", text), frozenset())))
        self._masks[path] = (raw, state)
        return state
