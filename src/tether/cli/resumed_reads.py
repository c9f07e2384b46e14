"""What a resumed, forked or rewound session's model had seen of each file, rebuilt from its
transcript, as Claude Code rebuilds its read state on resume: Edit and Write then take a file
the conversation shows was read, and still refuse one changed on disk since.

Each tool result's `toolUseResult` on the conversation's branch says what the model last saw
of a file: a Read (of all its lines or some, as a live session counts either), a Write's
content, an Edit's file after the change. A subagent's reads are its own (off the branch).
A file that changed since and that the session's own Write or Edit after a rewind point left as it
is now (off the branch) is said to be that, not another program's change.

Nothing is read of the files at resume: each is checked when an Edit or Write needs it (a
session may have read thousands). The result's `sha256` is the digest of the bytes on disk
the model saw, so the check is exact, whatever Read's text left out (CRs, the end of a long
line, the encoding), and it covers the lines a partial Read did not show. A transcript written
before results carried it gives only the text shown: the file is then shown the same way and
compared with that, and a difference is said to be one that cannot be checked, not a change
another program made; a partial Read there vouches for nothing it did not show, so it leaves
what was known before, and alone it is said to be a read in part, not no read."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Final, NamedTuple, cast

from tether.core.session import Session
from tether.protocol import ToolError
from tether.store.branch import Indexed
from tether.store.entry_lines import fields_at
from tether.store.foreign import is_off_conversation
from tether.store.reader import LoadedSession
from tether.tools.builtin.files import decode_text
from tether.tools.builtin.read import whole_text_shown
from tether.tools.file_state import FileVersion, digest_of

_READ: Final = "read"
_WRITTEN: Final = "written"


class Seen(NamedTuple):
    """What a tool result showed of a file: `how` it came (read, or written by Write or
    Edit), its `content` as the result gives it, the digest of its bytes when given, and for
    a Read of some lines which (`lines 1-2000 of 2501`)."""

    how: str
    content: str
    digest: bytes | None
    part: str | None = None


def restore_reads(session: Session, loaded: LoadedSession) -> None:
    """Give the session the files its transcript shows the model saw whole, at that version."""
    context = session.agent.tool_context
    rewound = _OwnLaterWrites(loaded)
    for named, seen in seen_in_transcript(loaded).items():
        try:
            path = context.resolve(named)
        except ToolError:
            continue
        context.files.reads[path] = TranscriptVersion(seen, rewound.of(named))


class _OwnLaterWrites:
    """What this session wrote after the point its conversation went back to (off the
    branch), read from the transcript once, and only when a file turns out changed."""

    def __init__(self, loaded: LoadedSession) -> None:
        self._loaded = loaded
        self._seen: dict[str, Seen] | None = None

    def of(self, named: str) -> Callable[[], Seen | None]:
        def made() -> Seen | None:
            if self._seen is None:
                self._seen = _seen_in(self._loaded, self._loaded.off_branch)
            return self._seen.get(named)

        return made


class TranscriptVersion(FileVersion):
    """A file's version as a transcript shows it, checked against the file when needed."""

    __slots__ = ("_own_later_write", "_seen")

    def __init__(self, seen: Seen, own_later_write: Callable[[], Seen | None]) -> None:
        super().__init__(0, 0, len(seen.content), 0, seen.digest)
        self._seen = seen
        self._own_later_write = own_later_write

    def is_current(self, st: os.stat_result, content: bytes) -> bool:
        return _shows(content, self._seen)

    def why_not_current(self, shown: str, content: bytes) -> str:
        made = self._own_later_write()
        if made is not None and made.how == _WRITTEN and _shows(content, made):
            return (
                f"{shown} was changed by this session's own Write or Edit after the point the "
                "conversation was rewound to, so the conversation no longer shows it as it is; "
                "Read it again before changing it."
            )
        if self._seen.digest is None and self._seen.part is not None:
            return (
                f"{shown} was read only in part ({self._seen.part}) in the earlier session, "
                "whose transcript keeps no digest of the file, so whether the rest is as it was "
                "cannot be checked; Read it again before changing it."
            )
        if self._seen.digest is None:
            return (
                f"{shown} is not as the earlier session's transcript shows it, and that "
                "transcript keeps only the text shown, so whether the file changed since cannot "
                "be checked; Read it again before changing it."
            )
        return super().why_not_current(shown, content)


def _shows(data: bytes, seen: Seen) -> bool:
    """Whether a file holding `data` is what the tool result showed of it."""
    if seen.digest is not None:
        return digest_of(data) == seen.digest
    if seen.part is not None:  # the lines not shown cannot be compared
        return False
    if seen.how == _WRITTEN:
        return decode_text(data) == seen.content
    return whole_text_shown(data) == seen.content


def seen_in_transcript(loaded: LoadedSession) -> dict[str, Seen]:
    """By path as the model named it, what it last saw of the whole file."""
    return _seen_in(loaded, loaded.branch)


def _seen_in(loaded: LoadedSession, entries: tuple[Indexed, ...]) -> dict[str, Seen]:
    seen: dict[str, Seen] = {}
    try:
        with loaded.path.open("rb") as file:
            for indexed in entries:
                file.seek(indexed.offset)
                if b'"toolUseResult"' not in file.readline():
                    continue  # most entries: not parsed a second time
                fields = fields_at(file, indexed.offset)
                if fields is None or fields.get("type") != "user" or is_off_conversation(fields):
                    continue
                result = fields.get("toolUseResult")
                if isinstance(result, dict):
                    found = _file_seen(cast(dict[str, Any], result))
                    if found is None:
                        continue
                    named, what = found
                    if what.part is not None and what.digest is None and named in seen:
                        continue  # vouches for less than what was known before
                    seen[named] = what
    except OSError:  # the session was loaded from it: gone since, nothing is known
        return {}
    return seen


def _file_seen(result: dict[str, Any]) -> tuple[str, Seen] | None:
    """(path, what was seen) when the result shows a file as it then was, whole or in part."""
    shown = result.get("file")
    if result.get("type") == "text" and isinstance(shown, dict):
        read = cast(dict[str, Any], shown)
        path, content = read.get("filePath"), read.get("content")
        if isinstance(path, str) and isinstance(content, str):
            return path, Seen(_READ, content, _digest(result), _part(read))
        return None
    path = result.get("filePath")
    if not isinstance(path, str):
        return None
    if result.get("type") in ("create", "update") and isinstance(result.get("content"), str):
        return path, Seen(_WRITTEN, cast(str, result["content"]), _digest(result))
    original, old, new = (result.get(k) for k in ("originalFile", "oldString", "newString"))
    if isinstance(original, str) and isinstance(old, str) and isinstance(new, str) and old:
        count = -1 if result.get("replaceAll") is True else 1
        return path, Seen(_WRITTEN, original.replace(old, new, count), _digest(result))
    return None


def _part(read: dict[str, Any]) -> str | None:
    """Which lines a Read showed (`lines 1-2000 of 2501`), or None when it showed them all."""
    first, count, total = (read.get(k) for k in ("startLine", "numLines", "totalLines"))
    if first == 1 and count == total:
        return None
    if not (isinstance(first, int) and isinstance(count, int) and isinstance(total, int)):
        return "lines unknown"
    if count == 0:
        return f"none of its {total} lines"
    return f"lines {first}-{first + count - 1} of {total}"


def _digest(result: dict[str, Any]) -> bytes | None:
    given = result.get("sha256")
    if not isinstance(given, str) or len(given) != 64:
        return None
    try:
        return bytes.fromhex(given)
    except ValueError:
        return None
