"""Revert's snapshots: what each file held before each Write or Edit of this session, kept on
disk rather than in memory, and within a budget.

They live in one temporary file with no name (`tempfile.TemporaryFile`): nothing else can
open it (a command cannot swap a snapshot for content of its own), and the kernel frees it
when tether exits, however it exits, so there is never anything to clean. Snapshots are
appended to it; the oldest are dropped once the live ones pass the budget, and the file is
rewritten without the dropped ones once they take more room than the live ones.
"""

from __future__ import annotations

import os
import tempfile
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Final

from tether.slotted import Slotted

DEFAULT_BUDGET_BYTES = 512 * 1024 * 1024
"""The snapshots of a session take at most this much disk; the oldest go first."""


class _Stored(Slotted):
    __slots__ = ("offset", "size")
    offset: Final[int]
    size: Final[int]

    def __init__(self, offset: int, size: int) -> None:
        self.offset = offset
        self.size = size


_ABSENT = None
"""A snapshot of a file that did not exist before the write (Revert deletes it)."""


class _History(Slotted):
    __slots__ = ("dropped", "stack")
    stack: list[_Stored | None]
    dropped: int
    """Snapshots of the earliest changes, dropped for the budget: those changes can no longer
    be reverted."""

    def __init__(self) -> None:
        self.stack = []
        self.dropped = 0


class SnapshotStore:
    """Per path, a stack of the contents before each change (None: the file did not exist).

    `directory` is where the unnamed file is made (None: the system's temporary directory);
    it is made at the first snapshot, so a session that changes nothing costs nothing."""

    def __init__(
        self, directory: Path | None = None, *, budget_bytes: int = DEFAULT_BUDGET_BYTES
    ) -> None:
        self.directory = directory
        self.budget_bytes = budget_bytes
        self._histories: dict[Path, _History] = {}
        self._order: list[tuple[Path, _Stored]] = []
        """Every stored snapshot, oldest first: the order they are dropped in."""
        self._file: IO[bytes] | None = None
        self._end = 0
        self._live_bytes = 0

    def __len__(self) -> int:
        return sum(len(h.stack) for h in self._histories.values())

    def count(self, path: Path) -> int:
        """How many changes of `path` can still be reverted."""
        history = self._histories.get(path)
        return len(history.stack) if history is not None else 0

    def dropped(self, path: Path) -> int:
        """How many earlier changes of `path` can no longer be reverted (budget)."""
        history = self._histories.get(path)
        return history.dropped if history is not None else 0

    def contents(self) -> dict[Path, list[bytes | None]]:
        """Every snapshot kept, read back, oldest first per path (for inspection)."""
        return {
            path: [None if s is None else self._read(s) for s in history.stack]
            for path, history in self._histories.items()
            if history.stack
        }

    def mark(self) -> dict[Path, int]:
        """How many changes of each file were made so far: a point `rewind` goes back to."""
        return {path: h.dropped + len(h.stack) for path, h in self._histories.items()}

    def changed_since(self, mark: Mapping[Path, int]) -> dict[Path, int]:
        """Per file changed since `mark`, how many of its changes came after it. Raises
        LookupError when the snapshot of one of them was dropped (budget)."""
        since: dict[Path, int] = {}
        for path, history in self._histories.items():
            count = history.dropped + len(history.stack) - mark.get(path, 0)
            if count > len(history.stack):
                raise LookupError(f"the snapshots of {path} from then were dropped (budget)")
            if count > 0:
                since[path] = count
        return since

    def held_at(self, mark: Mapping[Path, int]) -> dict[Path, bytes | None]:
        """What each file changed since `mark` held then (None: it did not exist), leaving the
        snapshots in place. Raises LookupError as `changed_since`; OSError as `pop`."""
        held: dict[Path, bytes | None] = {}
        for path, count in self.changed_since(mark).items():
            stack = self._histories[path].stack
            entry = stack[len(stack) - count]
            held[path] = None if entry is None else self._read(entry)
        return held

    def rewind(self, mark: Mapping[Path, int]) -> dict[Path, bytes | None]:
        """What each file changed since `mark` held then (None: it did not exist); the
        snapshots of those changes are taken off. Raises LookupError as `changed_since`."""
        restored: dict[Path, bytes | None] = {}
        for path, count in self.changed_since(mark).items():
            for _ in range(count):
                restored[path] = self.pop(path)
        return restored

    def push(self, path: Path, content: bytes | None) -> None:
        """Keep `content` as what `path` held before a change. Raises OSError when the disk
        refuses (the caller then does not make the change)."""
        history = self._histories.setdefault(path, _History())
        if content is None:
            history.stack.append(_ABSENT)
            return
        stored = self._append(content)
        history.stack.append(stored)
        self._order.append((path, stored))
        self._live_bytes += stored.size
        self._drop_oldest_past_budget(keep=stored)

    def pop(self, path: Path) -> bytes | None:
        """The content before the newest change still kept (None: the file did not exist).
        Raises KeyError when no change of `path` is left to revert; OSError when the disk
        cannot give it back (the snapshot is then kept)."""
        history = self._histories.get(path)
        if history is None or not history.stack:
            raise KeyError(path)
        stored = history.stack[-1]
        content = None if stored is None else self._read(stored)
        history.stack.pop()
        if stored is not None:
            self._forget(path, stored)
        if not history.stack and not history.dropped:
            del self._histories[path]
        return content

    def close(self) -> None:
        """Free the disk they take (the kernel would, at exit)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._histories.clear()
        self._order.clear()
        self._end = self._live_bytes = 0

    def _append(self, content: bytes) -> _Stored:
        if self._file is None:
            # Kept open for the session's life: closed by `close`, or freed at exit.
            try:
                if self.directory is not None:
                    self.directory.mkdir(parents=True, exist_ok=True)
                self._file = tempfile.TemporaryFile(  # noqa: SIM115
                    prefix="tether-snapshots-", dir=self.directory, buffering=0
                )
            except OSError:
                # The scratch directory is unusable: the system's temporary directory will do.
                self._file = tempfile.TemporaryFile(  # noqa: SIM115
                    prefix="tether-snapshots-", buffering=0
                )
            # A store dropped without `close` (a context nobody closes) frees it quietly.
            weakref.finalize(self, self._file.close)
        stored = _Stored(self._end, len(content))
        view = memoryview(content)
        written = 0
        while written < len(view):
            written += os.pwrite(self._file.fileno(), view[written:], self._end + written)
        self._end += len(content)
        return stored

    def _read(self, stored: _Stored, file: IO[bytes] | None = None) -> bytes:
        source = file or self._file
        assert source is not None
        parts: list[bytes] = []
        done = 0
        while done < stored.size:
            part = os.pread(source.fileno(), stored.size - done, stored.offset + done)
            if not part:
                raise OSError(f"the snapshot store ended {stored.size - done} bytes early")
            parts.append(part)
            done += len(part)
        return b"".join(parts)

    def _forget(self, path: Path, stored: _Stored) -> None:
        self._order.remove((path, stored))
        self._live_bytes -= stored.size
        self._compact_if_sparse()

    def _drop_oldest_past_budget(self, *, keep: _Stored) -> None:
        while self._live_bytes > self.budget_bytes and self._order[0][1] is not keep:
            path, oldest = self._order.pop(0)
            self._live_bytes -= oldest.size
            history = self._histories[path]
            # With it go the file's earlier "did not exist" marks: they cannot be reached
            # without undoing this change first. (Its older contents went before it.)
            index = next(i for i, s in enumerate(history.stack) if s is oldest)
            del history.stack[: index + 1]
            history.dropped += index + 1
        self._compact_if_sparse()

    def _compact_if_sparse(self) -> None:
        """Rewrite the file with only the live snapshots once the dropped ones take more
        room than they do: the disk used stays under about twice the budget."""
        if self._file is None or self._end - self._live_bytes <= max(self._live_bytes, 1 << 20):
            return
        old_file, old_order, old_end = self._file, self._order, self._end
        self._file, self._order, self._end = None, [], 0
        moved: dict[int, _Stored] = {}
        try:
            for path, stored in old_order:
                new = self._append(self._read(stored, old_file))
                moved[id(stored)] = new
                self._order.append((path, new))
        except BaseException:
            if self._file is not None:
                self._file.close()
            self._file, self._order, self._end = old_file, old_order, old_end
            raise
        old_file.close()
        for history in self._histories.values():
            history.stack = [None if s is None else moved[id(s)] for s in history.stack]
