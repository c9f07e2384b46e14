"""Keeping a session on disk: the journal that appends every history change (and the spend
of calls outside the conversation) to the session's JSONL file. Resuming is in `resume`."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tether.core.carried import is_tether_text
from tether.protocol import ContentBlock, HarnessError, Message, TextBlock, Usage
from tether.store import EntryWatcher, ReplyEntries, SessionWriter, new_message_id
from tether.store.write_errors import FREE_SPACE, ID_TAKEN, remedy

TITLE_CHARS = 80
MIN_FREE_BYTES = 16 * 1024
"""Less free space than this where the session file is, and no tool runs (see `not_saved`)."""
PROMPT_LINE_CHARS = 200

WAITING = (
    "this session is not being saved for now: what could not be written is kept, and written "
    "in order as soon as the file takes writes again"
)

NO_FILE = "run it without a session file: `--no-session-persistence`"

_Entry = Callable[[SessionWriter], object]
"""Writes exactly one entry: a failed one is written again later, never twice."""


class SessionRecorder:
    """A `Journal` that writes to the session file, which it creates at the first entry (a
    session nobody spoke in leaves no file). The first user text becomes the title.

    Writing never stops the session, and never stops for good. An entry that cannot be
    written (a full disk, a file made read-only) waits, with every entry after it, and each
    new entry tries again to write them all, in order: the file never misses an entry from
    its middle, and nothing is lost once the disk takes writes again. What the user should
    hear (saving failed, saving again, the file was removed or replaced) waits in
    `take_notices`."""

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
        self._titled_by_newest = False
        """The newest user entry gave the session its title (see `withdraw`)."""
        self._typed: str | None = None
        """What the next prompt journaled stands for (`title_by`)."""
        self._remedy = FREE_SPACE
        """What lets the file take writes again: free space, a file size limit raised, the
        file made writable (`write_errors.remedy`)."""
        self._waiting: deque[_Entry] = deque()
        self._saves = True
        self._notices: list[str] = []
        self.problem: str | None = None
        """Why entries are waiting to be written (None while everything is saved)."""
        self.path: Path | None = None
        self.resumable_as: str | None = None
        """The session id under which what this session saved can be resumed (`--resume`):
        None while nothing of it is on disk (a new session whose file could not be made)."""
        self.forked_from: str | None = None
        """The session this one forks, when its own file could not be made (see `unsaved`)."""
        self.session_wall_ms: Callable[[], int] = lambda: 0
        """The session's wall time so far, its earlier runs' included (the session's clock):
        each reply carries it, for a resumed session's wall time to go on from."""

    @classmethod
    def continuing(cls, writer: SessionWriter, *, title: str | None = None) -> SessionRecorder:
        """A recorder appending to `writer`'s file, whose last title is `title`: an empty
        one (cleared when the prompt that gave it was withdrawn) is given by the next prompt."""
        recorder = cls(lambda: writer, titled=title != "", watchers=writer.watchers)
        recorder._writer, recorder.path = writer, writer.path
        recorder.resumable_as = writer.session_id
        return recorder

    @classmethod
    def retrying(
        cls,
        open_writer: Callable[[], SessionWriter],
        problem: str,
        *,
        session_id: str,
        watchers: list[EntryWatcher] | None = None,
        error: BaseException | None = None,
    ) -> SessionRecorder:
        """A recorder whose file (of the session `session_id`, which holds what was saved
        before) cannot be opened now (`problem`, told by whoever made it): it tries again at
        each entry, and says when the session is saved again."""
        recorder = cls(open_writer, titled=True, watchers=watchers)
        recorder.problem = problem
        recorder.resumable_as = session_id
        if error is not None:
            recorder._remedy = remedy(error)
        return recorder

    @classmethod
    def unsaved(
        cls,
        problem: str,
        *,
        forked_from: str | None = None,
        error: BaseException | None = None,
    ) -> SessionRecorder:
        """A recorder for a session whose file cannot be written (a fork of `forked_from`
        whose file could not be made): it records nothing (whoever made it tells the user
        why)."""
        recorder = cls(lambda: _never_opened(problem), titled=True)
        recorder.problem = problem
        recorder._saves = False
        recorder.forked_from = forked_from
        if error is not None:
            recorder._remedy = remedy(error)
        return recorder

    def not_saved(self) -> str | None:
        """Why the session is not all on disk now, after trying once more to write what
        waits, or why what comes next could not be (its file system is full: the last
        entries may have fitted in the slack of the file's last block); None otherwise."""
        if self._saves and self._waiting:
            self._flush(len(self._waiting))
        if self.problem is not None or self.path is None:
            return self.problem
        try:
            found = os.statvfs(self.path.parent)
        except OSError:
            return None  # cannot tell: the next write will
        free = found.f_bavail * found.f_frsize
        if free >= MIN_FREE_BYTES:
            return None
        return (
            f"the file system of {self.path} is full ({free:,} bytes free): what the tools do "
            "could not be saved"
        )

    def how_to_go_on(self) -> str:
        """What the session file holds and how to go on once it can be written, for the end of
        a turn stopped because it could not be (never `-c`, which may resume another one)."""
        if self.forked_from is not None:
            return (
                f"Nothing of the fork was saved, not even its prompt; the session it forks "
                f"({self.forked_from}) is as it was: {self._or_writable('sessions folder')} and "
                f"fork it again with `tether --resume {self.forked_from} --fork-session` and "
                "the prompt."
            )
        if self.resumable_as is None:
            # Another id is the remedy for a taken one; else going on without a file works.
            unsaved = "" if self._remedy == ID_TAKEN else f" (or {NO_FILE})"
            return (
                "Nothing of this session was saved, not even its prompt: "
                f"{self._or_writable('sessions folder')} and send the prompt again{unsaved}."
            )
        return (
            "The session file holds everything up to the last entry it took: "
            f"{self._or_writable('file')} and resume it with `tether --resume "
            f"{self.resumable_as}`."
        )

    def _or_writable(self, what: str) -> str:
        """The remedy, and for a full disk (the failure tells no more) the other one."""
        if self._remedy == FREE_SPACE:
            return f"{FREE_SPACE} (or make the {what} writable)"
        return self._remedy.replace("make it writable", f"make the {what} writable")

    def take_notices(self) -> list[str]:
        """What the user should be told since the last call, oldest first."""
        taken, self._notices = self._notices, []
        return taken

    def title_by(self, typed: str) -> None:
        """The next prompt journaled stands for `typed` (a command or a skill, expanded):
        `typed` titles the session, if that prompt is the one to title it."""
        self._typed = typed

    def user(
        self, blocks: Sequence[ContentBlock], entry_uuid: str | None = None, structured: Any = None
    ) -> None:
        entries: list[_Entry] = [lambda w: w.user(blocks, entry_uuid, structured)]
        # The title is what the user typed: never a block tether added before it.
        first = self._typed or next(
            (b.text for b in blocks if isinstance(b, TextBlock) and not is_tether_text(b.text)),
            None,
        )
        self._typed = None
        self._titled_by_newest = False
        if not self._titled and first and first.strip():
            self._titled = self._titled_by_newest = True
            title = make_title(first)
            entries.append(lambda w: w.title(title))
        self._record(*entries)

    def withdraw(self) -> None:
        """Take back the newest user entry (a prompt refused before it was sent): the file
        says so, and a resumed session goes on from before it (`SessionWriter.withdraw`). A
        title it gave is given again by the next prompt."""
        self._record(lambda w: w.withdraw())
        if self._titled_by_newest:
            # Its title is cleared (an empty one): the next prompt kept, in this process or
            # a resumed one (see `continuing`), gives it again.
            self._titled = self._titled_by_newest = False
            self._record(lambda w: w.title(""))

    def prompt_answered(self, text: str) -> None:
        """A prompt's turn ended: Claude Code's `last-prompt` line after its messages, naming
        the newest one. The Agent SDK's `list_sessions` shows it as the session's summary
        (what was asked last); readers that replay the conversation skip it."""
        said = _prompt_line(text)
        if said:
            self._record(
                lambda w: w.bookkeeping("last-prompt", lastPrompt=said, leafUuid=w.last_uuid)
            )

    def bookkeeping(self, type: str, **fields: Any) -> None:
        """A line of the session's own facts that is no entry of the conversation (readers
        that replay it skip it), written after its messages so far."""
        self._record(lambda w: w.bookkeeping(type, **fields))

    def assistant(self, message: Message, usage: Usage | None, reply: ReplyEntries) -> None:
        """The reply, an entry per block (each written once, as any entry is)."""
        message_id, request_id = reply.message_id or new_message_id(), reply.request_id
        model = reply.model
        count = len(message.content)
        uuids = reply.uuids if len(reply.uuids) == count else (None,) * count
        wall = self.session_wall_ms()  # now, not when a waiting entry is written

        def block(index: int) -> _Entry:
            named = uuids[index]
            shown = message.content[index]
            took = reply.duration_ms if index == 0 else 0  # the call's time, counted once
            return lambda w: w.reply_block(
                shown,
                usage,
                named,
                message_id,
                request_id,
                model,
                duration_ms=took,
                session_wall_ms=wall if index == 0 else 0,
            )

        self._record(*(block(i) for i in range(count)))

    def compacted(self, summary: Sequence[Message], kept: int) -> None:
        self._record(lambda w: w.compacted(summary, kept))

    def spent(self, usage: Usage, cost_usd: float) -> None:
        """A model call outside the conversation (subagent, compaction summary), so that a
        resumed session still counts it."""
        self._record(lambda w: w.spent(usage, cost_usd))

    def window_reported(
        self, model: str, tokens: int, chars_per_token: float | None = None
    ) -> None:
        """The endpoint said `model`'s context window is `tokens` (refusing a request as too
        long), and its count made a request's estimate `chars_per_token`: a resumed session
        fits its requests to both from the start."""
        fields: dict[str, Any] = {"model": model, "tokens": tokens}
        if chars_per_token is not None:
            fields["charsPerToken"] = round(chars_per_token, 4)
        self._record(lambda w: w.append("window", **fields))

    def estimate_measured(self, model: str, chars_per_token: float) -> None:
        """The requests `model` accepted took `chars_per_token` (measured against each as
        sent, cut or not): a resumed session estimates with it from the start."""
        ratio = round(chars_per_token, 4)
        self._record(lambda w: w.append("estimate", model=model, charsPerToken=ratio))

    def close(self) -> None:
        """Write what waits if the file now takes it, then sync and close the file. A
        failure is kept in `problem`: what was written stays, and closing goes on. What
        still cannot be written is lost with the process: a notice counts it, as the
        promise to write it later no longer holds."""
        if self._waiting:
            self._flush(len(self._waiting))
        if self._waiting and self.resumable_as is not None:  # else the turn's end said so
            count = len(self._waiting)
            what = "1 entry" if count == 1 else f"{count} entries"
            self._notices.append(
                f"{what} of this session could not be written to its file and "
                f"{'is' if count == 1 else 'are'} lost as tether exits: a resumed session "
                "will not have them"
            )
        if self._writer is not None:
            try:
                self._writer.close()
            except HarnessError as e:
                self.problem = self.problem or str(e)

    def _record(self, *entries: _Entry) -> None:
        if not self._saves:
            return
        waited = len(self._waiting)
        self._waiting.extend(entries)
        self._flush(waited)

    def _flush(self, waited: int) -> None:
        """Write every waiting entry; `waited` of them were there before this attempt."""
        try:
            if self._writer is None:
                self._writer = self._open()
                self.path = self._writer.path
            while self._waiting:
                self._waiting[0](self._writer)
                self._waiting.popleft()
        except (HarnessError, OSError) as e:
            # A new session's file never made: the turn stops before the model, saying so;
            # promising to write it later would contradict that.
            if self.problem is None and (self._writer is not None or self.resumable_as):
                self._notices.append(f"{e}; {WAITING}")
            self.problem = str(e)
            self._remedy = remedy(e)
        else:
            if self.problem is not None:
                what = "entry" if waited == 1 else "entries"
                self._notices.append(
                    f"the session is saved again to {self.path}: the {waited} {what} that "
                    "could not be written before are in it now"
                )
                self.problem = None
        finally:
            if self._writer is not None:
                self.path = self._writer.path
                if self._writer.last_uuid is not None:  # an entry of the conversation is in
                    self.resumable_as = self._writer.session_id
                self._notices.extend(self._writer.notices)
                self._writer.notices.clear()


def _never_opened(problem: str) -> SessionWriter:
    raise HarnessError(problem)


def make_title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def _prompt_line(text: str) -> str:
    """A prompt as Claude Code keeps it for a session's summary (and the SDK reads a first
    prompt): on one line, at most 200 characters and an ellipsis."""
    line = text.replace("\n", " ").strip()
    return line if len(line) <= PROMPT_LINE_CHARS else line[:PROMPT_LINE_CHARS].rstrip() + "…"
