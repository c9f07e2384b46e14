"""Keeping a session on disk: the journal that appends every history change (and the spend
of calls outside the conversation) to the session's JSONL file. Resuming is in `resume`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tether.protocol import ContentBlock, HarnessError, Message, TextBlock, Usage
from tether.store import EntryWatcher, SessionWriter

TITLE_CHARS = 80


class SessionRecorder:
    """A `Journal` that writes to the session file, which it creates at the first entry (a
    session nobody spoke in leaves no file). The first user text becomes the title.

    Writing never stops the session: the first failure (a full disk) is kept in `problem`,
    said once by the session, and recording stops there, so that the file is never left with
    an entry missing from the middle of it."""

    def __init__(
        self,
        open_writer: Callable[[], SessionWriter],
        *,
        titled: bool = False,
        watchers: list[EntryWatcher] | None = None,
    ) -> None:
        self._open = open_writer
        self.watchers: list[EntryWatcher] = [] if watchers is None else watchers
        """Told of each entry written (the writer `open_writer` makes must share this list, so
        that what it writes as it opens the file is told too)."""
        self._writer: SessionWriter | None = None
        self._titled = titled
        self.problem: str | None = None
        """Why the session is no longer saved, once writing failed."""
        self.problem_told = False
        """Whether the user was told `problem` (it is said once)."""
        self.path: Path | None = None

    @classmethod
    def continuing(cls, writer: SessionWriter) -> SessionRecorder:
        recorder = cls(lambda: writer, titled=True, watchers=writer.watchers)
        recorder._writer, recorder.path = writer, writer.path
        return recorder

    @classmethod
    def unsaved(cls, problem: str) -> SessionRecorder:
        """A recorder for a session whose file cannot be written: it records nothing."""
        recorder = cls(lambda: _never_opened(problem), titled=True)
        recorder.problem = problem
        return recorder

    def user(self, blocks: Sequence[ContentBlock]) -> None:
        def write(w: SessionWriter) -> None:
            w.user(blocks)
            first = next((b.text for b in blocks if isinstance(b, TextBlock)), None)
            if not self._titled and first and first.strip():
                self._titled = True
                w.title(make_title(first))

        self._record(write)

    def assistant(self, message: Message, usage: Usage | None) -> None:
        self._record(lambda w: w.assistant(message, usage))

    def compacted(self, summary: Sequence[Message], kept: int) -> None:
        self._record(lambda w: w.compacted(summary, kept))

    def spent(self, usage: Usage, cost_usd: float) -> None:
        """A model call outside the conversation (subagent, compaction summary), so that a
        resumed session still counts it."""
        self._record(lambda w: w.spent(usage, cost_usd))

    def close(self) -> None:
        """Sync and close the file. A failure to sync (a full disk) is kept in `problem`:
        what was written stays, and closing goes on."""
        if self._writer is not None:
            try:
                self._writer.close()
            except HarnessError as e:
                self.problem = self.problem or str(e)

    def _record(self, write: Callable[[SessionWriter], Any]) -> None:
        if self.problem is not None:
            return
        try:
            if self._writer is None:
                self._writer = self._open()
                self.path = self._writer.path
            write(self._writer)
        except (HarnessError, OSError) as e:
            if self._writer is None:
                self.problem = f"{e}; this session is not being saved"
            else:
                self.problem = f"the session is no longer being saved: {e}"


def _never_opened(problem: str) -> SessionWriter:
    raise HarnessError(problem)


def make_title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
