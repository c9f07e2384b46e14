"""Reading a session file back: the records to replay, its title and origin, and a warning for
every line that could not be used. Bad content never raises; only a file that cannot be read does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeAlias, cast

from pydantic import ValidationError

from tether.protocol import ConfigError, ContentBlock, Message, Usage


class SessionNotFound(ConfigError):
    """No session file is there, or no single session matches the id asked for."""


@dataclass(frozen=True)
class UserRecord:
    """User content exactly as one append gave it (History merges it in memory)."""

    blocks: tuple[ContentBlock, ...]


@dataclass(frozen=True)
class AssistantRecord:
    message: Message
    usage: Usage | None


@dataclass(frozen=True)
class CompactionRecord:
    """From here on the summary stands for all but the newest `kept` messages."""

    summary: tuple[Message, ...]
    kept: int


Record: TypeAlias = UserRecord | AssistantRecord | CompactionRecord


@dataclass(frozen=True)
class LoadedSession:
    session_id: str
    path: Path
    records: tuple[Record, ...]
    """What to replay into a `History`, in file order."""
    title: str | None
    """The last title entry's."""
    forked_from: tuple[str, str | None] | None
    """(session id, entry uuid) this file was forked from, if it was."""
    last_uuid: str | None
    """The uuid of the last valid entry: the parent of the next one appended."""
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class Entry:
    """One valid line: its fields as written, and the record it holds if it holds one."""

    fields: dict[str, Any]
    record: Record | None


class _BadEntry(Exception):
    pass


def load_session(path: Path) -> LoadedSession:
    """Read a session file. Raises SessionNotFound if it is missing, ConfigError if unreadable."""
    warnings: list[str] = []
    records: list[Record] = []
    title: str | None = None
    forked_from: tuple[str, str | None] | None = None
    last_uuid: str | None = None
    for entry in iter_entries(path, warnings):  # one at a time: the raw lines are not all kept
        last_uuid = entry.fields["uuid"]
        if entry.record is not None:
            records.append(entry.record)
        elif entry.fields["type"] == "title":
            title = entry.fields["title"]
        elif entry.fields["type"] == "fork":
            origin = entry.fields["forkedFrom"]
            forked_from = (origin["sessionId"], origin["uuid"])
    return LoadedSession(
        session_id=path.stem,
        path=path,
        records=tuple(records),
        title=title,
        forked_from=forked_from,
        last_uuid=last_uuid,
        warnings=tuple(warnings),
    )


def iter_entries(path: Path, warnings: list[str]) -> Iterator[Entry]:
    """Every valid entry of a file in order; each line skipped adds a warning to `warnings`."""
    try:
        with path.open("rb") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    entry = _parse_entry(line)
                except _BadEntry as e:
                    warnings.append(f"line {number} of {path}: torn or invalid entry skipped ({e})")
                    continue
                yield entry
    except FileNotFoundError:
        raise SessionNotFound(f"no session file at {path}") from None
    except OSError as e:
        raise ConfigError(f"cannot read session file {path}: {e.strerror or e}") from e


def entry_at(file: BinaryIO, offset: int) -> Entry | None:
    """The entry on the line starting at `offset` of an open file, None if it is not valid."""
    file.seek(offset)
    try:
        return _parse_entry(file.readline())
    except _BadEntry:
        return None


def _parse_entry(line: bytes) -> Entry:
    """One line as an entry; raises _BadEntry saying what is wrong with it."""
    try:
        raw = json.loads(line)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or absurdly nested
        raise _BadEntry("not JSON") from None
    if not isinstance(raw, dict):
        raise _BadEntry("not a JSON object")
    fields = cast(dict[str, Any], raw)
    for key in ("type", "uuid", "sessionId", "timestamp", "cwd"):
        if not isinstance(fields.get(key), str):
            raise _BadEntry(f"no {key}")
    if not isinstance(fields.get("parentUuid", 0), str | None):
        raise _BadEntry("no parentUuid")
    try:
        return Entry(fields, _record(fields))
    except ValidationError as e:
        error = e.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise _BadEntry(f"{fields['type']}: {where}: {error['msg']}") from None


def _record(fields: dict[str, Any]) -> Record | None:
    match fields["type"]:
        case "user":
            return UserRecord(_message(fields.get("message"), "user").content)
        case "assistant":
            raw = fields.get("message")
            message = _message(raw, "assistant")
            usage = cast(dict[str, Any], raw).get("usage")
            return AssistantRecord(message, None if usage is None else Usage.model_validate(usage))
        case "compaction":
            summary, kept = fields.get("summary"), fields.get("kept")
            if not isinstance(summary, list) or type(kept) is not int or kept < 1:
                raise _BadEntry("compaction without a summary list and a positive kept")
            return CompactionRecord(tuple(Message.model_validate(m) for m in summary), kept)
        case "title":
            if not isinstance(fields.get("title"), str):
                raise _BadEntry("title is not a string")
        case "fork":
            origin = fields.get("forkedFrom")
            if not (
                isinstance(origin, dict)
                and isinstance(origin.get("sessionId"), str)
                and isinstance(origin.get("uuid"), str | None)
            ):
                raise _BadEntry("forkedFrom needs a sessionId and a uuid")
        case _:  # meta, and kinds a newer tether writes: part of the chain, nothing to replay
            pass
    return None


def _message(raw: object, role: str) -> Message:
    if not isinstance(raw, dict) or raw.get("role") != role:
        raise _BadEntry(f"message is not a {role} message")
    content = cast(dict[str, Any], raw).get("content")
    return Message.model_validate({"role": role, "content": content})
