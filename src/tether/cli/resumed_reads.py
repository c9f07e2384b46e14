"""What a resumed, forked or rewound session's model had seen of each file, rebuilt from its
transcript, as Claude Code rebuilds its read state on resume: Edit and Write then take a file
the conversation shows was read, and still refuse one changed on disk since.

Each tool result's `toolUseResult` on the conversation's branch says what the model last saw
of a file whole: a Read of all its lines, a Write's content, an Edit's file after the change.
A partial Read leaves what was known before; a subagent's reads are its own (off the branch).
A file that changed since and that the session's own Write or Edit after a rewind point left as it
is now (off the branch) is said to be that, not another program's change.

A Read's content is the file as Read shows it (decoded, CRLF as LF, long lines cut), not its
bytes; a Write's or Edit's is its text. So the file as it is now is shown the same way and
compared with that: when they agree, the file now is the version the model saw (its bytes are
kept, so a later change is caught byte for byte); when not, it changed since, and is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, NamedTuple, cast

from tether.core.session import Session
from tether.protocol import ToolError
from tether.store.branch import Indexed
from tether.store.entry_lines import fields_at
from tether.store.foreign import is_off_conversation
from tether.store.reader import LoadedSession
from tether.tools.builtin.files import decode_text
from tether.tools.builtin.read import whole_text_shown
from tether.tools.file_state import DIGEST_LIMIT_BYTES, FileVersion, digest_of

_READ: Final = "read"
_WRITTEN: Final = "written"


class Seen(NamedTuple):
    """What a tool result showed of a whole file: `how` it came (read, or written by Write or
    Edit) and its `content` as the result gives it."""

    how: str
    content: str


def restore_reads(session: Session, loaded: LoadedSession) -> None:
    """Give the session the files its transcript shows the model saw whole, at that version."""
    context = session.agent.tool_context
    rewound: dict[str, Seen] | None = None
    for named, seen in seen_in_transcript(loaded).items():
        try:
            path = context.resolve(named)
        except ToolError:
            continue
        data = _bytes_now(path)
        if data is None or not _shows(data, seen):
            if rewound is None:  # what this session wrote after the point it went back to
                rewound = _seen_in(loaded, loaded.off_branch)
            made = rewound.get(named)
            if (
                data is not None
                and made is not None
                and made.how == _WRITTEN
                and _shows(data, made)
            ):
                context.files.rewound_writes.add(path)
            data = seen.content.encode("utf-8", errors="surrogateescape")  # never matches
        context.files.reads[path] = FileVersion(0, 0, len(data), 0, digest_of(data))


def _bytes_now(path: Path) -> bytes | None:
    try:
        with path.open("rb") as file:
            data = file.read(DIGEST_LIMIT_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= DIGEST_LIMIT_BYTES else None


def _shows(data: bytes, seen: Seen) -> bool:
    """Whether a file holding `data` is what the tool result showed of it."""
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
                    found = _whole_file(cast(dict[str, Any], result))
                    if found is not None:
                        seen[found[0]] = found[1]
    except OSError:  # the session was loaded from it: gone since, nothing is known
        return {}
    return seen


def _whole_file(result: dict[str, Any]) -> tuple[str, Seen] | None:
    """(path, what was seen) when the result shows the whole file as it then was."""
    shown = result.get("file")
    if result.get("type") == "text" and isinstance(shown, dict):
        read = cast(dict[str, Any], shown)
        path, content = read.get("filePath"), read.get("content")
        whole = read.get("startLine") == 1 and read.get("numLines") == read.get("totalLines")
        if isinstance(path, str) and isinstance(content, str) and whole:
            return path, Seen(_READ, content)
        return None
    path = result.get("filePath")
    if not isinstance(path, str):
        return None
    if result.get("type") in ("create", "update") and isinstance(result.get("content"), str):
        return path, Seen(_WRITTEN, cast(str, result["content"]))
    original, old, new = (result.get(k) for k in ("originalFile", "oldString", "newString"))
    if isinstance(original, str) and isinstance(old, str) and isinstance(new, str) and old:
        count = -1 if result.get("replaceAll") is True else 1
        return path, Seen(_WRITTEN, original.replace(old, new, count))
    return None
