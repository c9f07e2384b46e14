"""Keeping a session on disk: the journal that appends every history change to the session's
JSONL file, and rebuilding a history (and the plan) from such a file on resume."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tether.core.history import History
from tether.protocol import ContentBlock, HarnessError, Message, TextBlock, Usage
from tether.store import (
    AssistantRecord,
    LoadedSession,
    SessionWriter,
    UserRecord,
)
from tether.tools.builtin.todo import TodoWriteInput
from tether.tools.context import TodoItem

TITLE_CHARS = 80

UNFINISHED_AT_EXIT = (
    "tether stopped before this tool call finished (the process ended); its outcome is "
    "unknown. Check the state it would have changed before relying on it."
)


class SessionRecorder:
    """A `Journal` that writes to the session file, which it creates at the first entry (a
    session nobody spoke in leaves no file). The first user text becomes the title.

    Writing never stops the session: the first failure (a full disk) is kept in `problem`,
    said once by the session, and recording stops there, so that the file is never left with
    an entry missing from the middle of it."""

    def __init__(self, open_writer: Callable[[], SessionWriter], *, titled: bool = False) -> None:
        self._open = open_writer
        self._writer: SessionWriter | None = None
        self._titled = titled
        self.problem: str | None = None
        self.path: Path | None = None

    @classmethod
    def continuing(cls, writer: SessionWriter) -> SessionRecorder:
        recorder = cls(lambda: writer, titled=True)
        recorder._writer, recorder.path = writer, writer.path
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

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()

    def _record(self, write: Callable[[SessionWriter], Any]) -> None:
        if self.problem is not None:
            return
        try:
            if self._writer is None:
                self._writer = self._open()
                self.path = self._writer.path
            write(self._writer)
        except (HarnessError, OSError) as e:
            self.problem = f"the session is no longer being saved: {e}"


def make_title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


@dataclass(frozen=True)
class Restored:
    history: History
    usage: tuple[Usage, ...]
    """Each model call's usage, to count the session's cost so far."""
    todos: tuple[TodoItem, ...]


def restore(loaded: LoadedSession) -> Restored:
    """The history a session file holds, as it was when written (compactions included), and
    the plan as TodoWrite last set it."""
    history = History()
    usage: list[Usage] = []
    for record in loaded.records:
        if isinstance(record, UserRecord):
            history.replay_user(record.blocks)
        elif isinstance(record, AssistantRecord):
            history.replay_assistant(record.message)
            if record.usage is not None:
                usage.append(record.usage)
                history.last_usage = record.usage
        else:
            try:
                history.replay_compaction(record.summary, record.kept)
            except ValueError:
                continue  # an entry that does not fit what precedes it: send everything
    return Restored(history, tuple(usage), last_plan(history.messages))


def last_plan(messages: Sequence[Message]) -> tuple[TodoItem, ...]:
    """The list of the newest TodoWrite call that succeeded."""
    failed = {r.tool_use_id for m in messages for r in m.tool_results() if r.is_error}
    for message in reversed(messages):
        for call in reversed(message.tool_uses()):
            if call.name != "TodoWrite" or call.id in failed:
                continue
            try:
                todos = TodoWriteInput.model_validate(call.input).todos
            except ValidationError:
                continue
            return tuple(TodoItem(t.content, t.status, t.active_form) for t in todos)
    return ()
