"""Appending to a session file: one JSON entry a line, each handed to the OS in a single write,
so a crash loses at most the line being written and never reorders or rewrites earlier ones.

A writer holds its file locked and checks before each write that the file is still the
session's (moved back, or forked to a new file, when something else took it away): see
`held_file`, which it extends.
"""

from __future__ import annotations

import errno
import os
import re
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tether.protocol import (
    ConfigError,
    ContentBlock,
    HarnessError,
    Message,
    TextBlock,
    Usage,
)
from tether.store.entry_encoding import (
    encode_entry,
    entry_block,
    entry_message,
    entry_time,
    prompt_first,
)
from tether.store.held_file import APPEND, HeldFile
from tether.store.hook_attachments import hook_attachments
from tether.store.partial import remove_abandoned
from tether.store.reply_entries import ReplyEntries, new_message_id
from tether.store.session_lock import ends_with_newline, lock_session_file
from tether.store.tool_result_context import result_attachments
from tether.store.write_errors import why_not_written

MESSAGE_TYPES = frozenset({"user", "assistant"})
"""Entries of the conversation itself: they chain to one another through `parentUuid`. Every
other entry (meta, title, spend, compaction, fork) hangs off the newest message and nothing
chains to it, so readers that follow the chain (Claude Code, its SDK) see only messages.
Files written before this rule have them on the chain: both read the same here."""

_HEADER = frozenset({"type", "uuid", "parentUuid", "sessionId", "timestamp", "cwd"})
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


EntryWatcher = Callable[[Path, dict[str, Any]], None]
"""Told of an entry written to a session file: the file's path and the entry."""


class SessionWriter(HeldFile):
    """Appends entries to one session file; a `Journal` for `History` (user, assistant,
    compacted). Build one with `create`, `reopen` or `fork_session`.

    A message's `parentUuid` is the previous message's `uuid`; any other entry's is the
    newest message's too, but no entry names it as parent (see `MESSAGE_TYPES`). Nothing is
    buffered: when a method returns, the OS has the whole line. `close` syncs it to disk.
    """

    def __init__(
        self,
        path: Path,
        fd: int,
        *,
        session_id: str,
        cwd: Path,
        last_uuid: str | None,
        model: str | None,
        watchers: list[EntryWatcher] | None = None,
    ) -> None:
        super().__init__(path, fd, session_id=session_id)
        self.cwd = cwd
        self.last_uuid = last_uuid
        """The newest message's uuid: the next entry's parentUuid."""
        self.model = model
        """Recorded on assistant entries."""
        self._withdrawable: list[tuple[str, str | None]] = []
        """The newest messages and their parents, while they are user entries written here
        one after another (see `withdraw`), oldest first."""
        self.watchers: list[EntryWatcher] = [] if watchers is None else watchers
        """Told of each entry once it is written whole (a session store's mirror)."""

    @classmethod
    def create(
        cls,
        directory: Path,
        session_id: str,
        *,
        cwd: Path,
        model: str | None = None,
        watchers: list[EntryWatcher] | None = None,
    ) -> SessionWriter:
        """Start `<directory>/<session_id>.jsonl`; refuses to touch one that already exists."""
        if not _SESSION_ID.fullmatch(session_id):
            raise ConfigError(
                f"invalid session id {session_id!r}: use letters, digits, '.', '_' and '-'"
            )
        path = directory / f"{session_id}.jsonl"
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except FileExistsError as e:  # mkdir's way of saying a file is in the folder's place
            raise HarnessError(
                f"cannot create session file {path}: the sessions folder {directory} is a "
                "file, not a folder"
            ) from NotADirectoryError(errno.ENOTDIR, str(e))
        except OSError as e:
            raise HarnessError(
                f"cannot create session file {path}: {why_not_written(e, path)}"
            ) from e
        try:
            remove_abandoned(directory)
            fd = os.open(path, APPEND | os.O_EXCL, 0o600)
        except FileExistsError as e:
            raise HarnessError(
                f"session id {session_id} is already in use (its file is {path})"
            ) from e
        except OSError as e:
            raise HarnessError(
                f"cannot create session file {path}: {why_not_written(e, path)}"
            ) from e
        try:
            lock_session_file(fd, path)
        except HarnessError:
            os.close(fd)
            raise
        return cls(
            path, fd, session_id=session_id, cwd=cwd, last_uuid=None, model=model, watchers=watchers
        )

    @classmethod
    def reopen(
        cls, path: Path, *, cwd: Path, last_uuid: str | None, model: str | None = None
    ) -> SessionWriter:
        """Continue a session file (resume). `last_uuid` is `LoadedSession.last_uuid` (set it
        later when the file is loaded once the writer holds it). A line torn by a crash is
        ended first, so the next entry starts on its own line. Raises `SessionInUse` when
        another writer holds the file, HarnessError when it cannot be written."""
        remove_abandoned(path.parent)
        try:
            fd = os.open(path, APPEND, 0o600)
        except OSError as e:
            raise HarnessError(f"cannot open session file {path}: {e.strerror or e}") from e
        writer = cls(path, fd, session_id=path.stem, cwd=cwd, last_uuid=last_uuid, model=model)
        try:
            lock_session_file(fd, path)
            if not ends_with_newline(path, fd):
                writer._write(b"\n")
        except OSError as e:
            os.close(fd)
            raise HarnessError(f"cannot read session file {path}: {e.strerror or e}") from e
        except HarnessError:
            os.close(fd)
            raise
        return writer

    def user(
        self, blocks: Sequence[ContentBlock], entry_uuid: str | None = None, structured: Any = None
    ) -> None:
        """User content; a prompt that is one text is kept as a string, as Claude Code keeps
        it (a Stop hook reading the transcript as its docs do finds it in `content`).
        `structured`: what the tool call a result answers did, as data (Claude Code's
        `toolUseResult`), kept when it changed a file (its `structuredPatch` is what a
        resumed session counts the lines changed by) or shows a file read (what a
        resumed session knows the model saw: `tether.cli.resumed_reads`); the other tools'
        would only write their output twice. A UserPromptSubmit hook's context goes in
        attachment entries after it (`hook_attachments`), as Claude Code keeps it; the
        reminders sent ahead of a prompt are kept after it (`prompt_first`), and how many
        (`movedReminders`), so that a resumed session sends them where they were sent."""
        blocks, attachments = hook_attachments(blocks)
        blocks, after_results = result_attachments(blocks)
        attachments.extend(after_results)
        ordered, moved = prompt_first(blocks)
        only = ordered[0] if len(ordered) == 1 else None
        content: str | list[dict[str, Any]] = [entry_block(b) for b in ordered]
        if isinstance(only, TextBlock) and only.text.strip():
            content = only.text
        extra: dict[str, Any] = {"movedReminders": moved} if moved else {}
        if _kept(structured):
            extra["toolUseResult"] = structured
        self.append(
            "user", entry_uuid=entry_uuid, message={"role": "user", "content": content}, **extra
        )
        for attachment in attachments:
            written = self.append("attachment", **attachment)
            if "sentAt" in attachment:
                # On the chain, as Claude Code writes a prompt's attachments: its resume
                # replays only the entries the chain goes through (a result's hook context
                # it finds by the call's id). A withdrawal goes back past it to the
                # prompt's parent (`withdraw`), and a reader drops it with the prompt.
                self.last_uuid = written

    def assistant(
        self,
        message: Message,
        usage: Usage | None,
        reply: ReplyEntries | None = None,
    ) -> None:
        """A reply as Claude Code writes it: an entry per content block (see
        `ReplyEntries`); without `reply`, the whole reply as one entry (as tether wrote
        replies before, which every reader still reads)."""
        if reply is None:
            self.append(
                "assistant",
                message={
                    "role": message.role,
                    "content": [entry_block(b) for b in message.content],
                    "model": self.model,
                    "usage": None if usage is None else usage.model_dump(mode="json"),
                },
                requestedModel=self.model,
            )
            return
        reply = reply.fitted(len(message.content))
        message_id = reply.message_id or new_message_id()
        for block, entry_uuid in zip(message.content, reply.uuids, strict=True):
            self.reply_block(block, usage, entry_uuid, message_id, reply.request_id, reply.model)

    def reply_block(
        self,
        block: ContentBlock,
        usage: Usage | None,
        entry_uuid: str | None,
        message_id: str,
        request_id: str | None,
        model: str | None = None,
        *,
        duration_ms: int = 0,
        session_wall_ms: int = 0,
    ) -> None:
        """One block of a reply, as its own entry (see `assistant`), naming the `model` that
        wrote it, as Claude Code's entries do (`message.model`, and `requestedModel`: this
        label can be trusted, see `entry_records`; None: the writer's, the session's model);
        `duration_ms`, what the call took, on one entry of the reply (`durationMs`);
        `session_wall_ms`, the session's wall time by then, its earlier runs' included
        (`sessionWallMs`: a resumed session's wall time goes on from the newest)."""
        extra: dict[str, Any] = {} if request_id is None else {"requestId": request_id}
        if duration_ms > 0:
            extra["durationMs"] = duration_ms
        if session_wall_ms > 0:
            extra["sessionWallMs"] = session_wall_ms
        self.append(
            "assistant",
            entry_uuid=entry_uuid,
            message={
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model or self.model,
                "content": [entry_block(block)],
                "usage": None if usage is None else usage.model_dump(mode="json"),
            },
            requestedModel=model or self.model,
            **extra,
        )

    def withdraw(self) -> None:
        """Take back the newest message, a user entry this writer wrote (a prompt refused
        as too long, or input that went with it; called again, the one before it, while
        those are user entries written here): a `withdrawn` entry names it, and the next
        message goes on from its parent, so that no reader replays it (see
        `reader.load_session`). Does nothing when the newest message is not such an entry."""
        if not self._withdrawable:
            return
        taken, parent = self._withdrawable.pop()
        self.last_uuid = parent
        self.append("withdrawn", withdrawn=taken)

    def compacted(self, summary: Sequence[Message], kept: int) -> None:
        self.append("compaction", summary=[entry_message(m) for m in summary], kept=kept)

    def spent(self, usage: Usage, cost_usd: float) -> None:
        """Model calls outside the conversation (a subagent, a compaction summary)."""
        self.append("spend", usage=usage.model_dump(mode="json"), costUSD=cost_usd)

    def title(self, title: str) -> None:
        self.append("title", title=title)

    def meta(self, **data: Any) -> None:
        """Facts about the session (model, tether version...), written when it starts."""
        self.append("meta", data=data)

    def bookkeeping(self, type: str, **fields: Any) -> None:
        """Write a line that is no entry of the conversation, in Claude Code's form: no uuid
        and no parent (no reader follows it or chains to it), the session's id last. Such
        lines are what Claude Code's tools read about a session without replaying it (its
        `last-prompt`)."""
        if "sessionId" in fields:
            raise ValueError("the session id is set by the writer")
        entry = {"type": type, **fields, "sessionId": self.session_id}
        self._write(encode_entry(entry))
        for watch in self.watchers:
            watch(self.path, entry)

    def append(self, type: str, *, entry_uuid: str | None = None, **fields: Any) -> str:
        """Write one entry of any type after the newest message; returns its uuid (a new one
        unless `entry_uuid` names it). If the write fails (disk full) it raises HarnessError
        and the entry does not count: the next one still points back to the last message
        written whole."""
        clash = _HEADER.intersection(fields)
        if clash:
            raise ValueError(f"fields {sorted(clash)} are set by the writer")
        entry_uuid = entry_uuid or str(uuid.uuid4())
        entry = {
            "type": type,
            "uuid": entry_uuid,
            "parentUuid": self.last_uuid,
            "sessionId": self.session_id,
            "timestamp": entry_time(),
            "cwd": str(self.cwd),
            **fields,
        }
        self._write(encode_entry(entry))
        if type in MESSAGE_TYPES:
            if type == "user":
                self._withdrawable.append((entry_uuid, self.last_uuid))
            else:
                self._withdrawable.clear()
            self.last_uuid = entry_uuid
        for watch in self.watchers:
            watch(self.path, entry)
        return entry_uuid

    def _forked(self, old_id: str) -> None:
        """A fork entry naming the session whose file was replaced, and its newest message."""
        self.append("fork", forkedFrom={"sessionId": old_id, "uuid": self.last_uuid})


def _kept(structured: Any) -> bool:
    """Whether a tool's `toolUseResult` goes in the file (see `SessionWriter.user`)."""
    if not isinstance(structured, dict):
        return False
    if "structuredPatch" in structured:
        return True
    # A Read's, whole or in part: a partial read is a read too, its digest vouching for the rest.
    return structured.get("type") == "text" and isinstance(structured.get("file"), dict)
