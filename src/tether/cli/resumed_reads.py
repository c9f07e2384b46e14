"""What a resumed, forked or rewound session's model had seen of each file, rebuilt from its
transcript, as Claude Code rebuilds its read state on resume: Edit and Write then take a file
the conversation shows was read, and still refuse one changed on disk since.

Each tool result's `toolUseResult` on the conversation's branch says what the model last saw
of a file whole: a Read of all its lines, a Write's content, an Edit's file after the change.
A partial Read leaves what was known before; a subagent's reads are its own (off the branch).
The version kept is that content's digest, so a file that differs from it now (changed since,
or shown in a form not its own: long lines cut, other line endings) is refused as changed."""

from __future__ import annotations

from typing import Any, cast

from tether.core.session import Session
from tether.protocol import ToolError
from tether.store.entry_lines import fields_at
from tether.store.foreign import is_off_conversation
from tether.store.reader import LoadedSession
from tether.tools.file_state import FileVersion, digest_of


def restore_reads(session: Session, loaded: LoadedSession) -> None:
    """Give the session the files its transcript shows the model saw whole, at that version."""
    context = session.agent.tool_context
    for named, content in seen_in_transcript(loaded).items():
        try:
            path = context.resolve(named)
        except ToolError:
            continue
        data = content.encode("utf-8")
        context.files.reads[path] = FileVersion(0, 0, len(data), 0, digest_of(data))


def seen_in_transcript(loaded: LoadedSession) -> dict[str, str]:
    """By path as the model named it, the content it last saw of the whole file."""
    seen: dict[str, str] = {}
    try:
        with loaded.path.open("rb") as file:
            for indexed in loaded.branch:
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


def _whole_file(result: dict[str, Any]) -> tuple[str, str] | None:
    """(path, content) when the result shows the whole file as it then was."""
    shown = result.get("file")
    if result.get("type") == "text" and isinstance(shown, dict):
        read = cast(dict[str, Any], shown)
        path, content = read.get("filePath"), read.get("content")
        whole = read.get("startLine") == 1 and read.get("numLines") == read.get("totalLines")
        if isinstance(path, str) and isinstance(content, str) and whole:
            return path, content
        return None
    path = result.get("filePath")
    if not isinstance(path, str):
        return None
    if result.get("type") in ("create", "update") and isinstance(result.get("content"), str):
        return path, cast(str, result["content"])
    original, old, new = (result.get(k) for k in ("originalFile", "oldString", "newString"))
    if isinstance(original, str) and isinstance(old, str) and isinstance(new, str) and old:
        count = -1 if result.get("replaceAll") is True else 1
        return path, original.replace(old, new, count)
    return None
