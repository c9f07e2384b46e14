"""One line of a session file as an entry, for the reader's index (`load_session`) and the
listing's quick look (`sessions`): a JSON object with a valid header (`type`, `uuid`,
`sessionId`, `parentUuid`), read leniently (bytes that are not UTF-8, numbers too long to read,
descriptive fields not valid), and the bookkeeping lines of other programs passed over."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, cast

from tether.bounded_json import loads_numbers_read
from tether.protocol import ConfigError
from tether.store.entry_records import BadEntry
from tether.store.foreign import is_bookkeeping
from tether.store.sessions import SessionNotFound

_DESCRIPTIVE = ("timestamp", "cwd")
"""Header fields that only describe an entry: when one is not valid it is read as empty (an
entry with no time is never the newest), and the message the entry carries is kept."""


@dataclass(frozen=True)
class Entry:
    """One line with a valid header: its fields as written."""

    fields: dict[str, Any]


class _Bookkeeping(Exception):
    """A line that is no entry of the conversation (see `foreign.is_bookkeeping`)."""


def scan_entries(
    path: Path, unreadable: list[int], replaced: list[int], long_numbers: list[int]
) -> Iterator[tuple[int, int, int, Entry]]:
    """(line number, offset, length, entry) of every line with a valid header, in file order;
    the numbers of the other non-blank lines go to `unreadable`, of those with bytes that are
    not UTF-8 to `replaced`, of those with numbers too long to read to `long_numbers`."""
    try:
        with path.open("rb") as lines:
            offset = 0
            for number, line in enumerate(lines, 1):
                start, offset = offset, offset + len(line)
                if not line.strip():
                    continue
                try:
                    yield (
                        number,
                        start,
                        len(line),
                        parse_entry(line, replaced, number, long_numbers),
                    )
                except _Bookkeeping:
                    continue
                except BadEntry:
                    unreadable.append(number)
    except FileNotFoundError:
        raise SessionNotFound(f"no session file at {path}") from None
    except OSError as e:
        raise ConfigError(f"cannot read session file {path}: {e.strerror or e}") from e


def entry_at(file: BinaryIO, offset: int) -> Entry | None:
    """The entry on the line starting at `offset` of an open file, None if it is not valid."""
    fields = fields_at(file, offset)
    return None if fields is None else Entry(fields)


def fields_at(file: BinaryIO, offset: int) -> dict[str, Any] | None:
    file.seek(offset)
    try:
        return parse_entry(file.readline()).fields
    except (BadEntry, _Bookkeeping):  # a damaged header can make a line read as bookkeeping
        return None


def parse_entry(
    line: bytes,
    replaced: list[int] | None = None,
    number: int = 0,
    long_numbers: list[int] | None = None,
) -> Entry:
    """One line as an entry with a valid header; raises BadEntry saying what is wrong. Bytes
    that are not UTF-8 (one Latin-1 byte written by another program) are read as U+FFFD, and
    the line's `number` goes to `replaced`: the rest of the entry is kept. A number too long
    for Python to read (thousands of digits, in a `usage` say) is read as null, unknown, and
    the line's number goes to `long_numbers`: the entry is kept, never dropped for one field."""
    found: list[int] = []
    try:
        try:
            raw = loads_numbers_read(line, found)
        except UnicodeDecodeError:
            raw = loads_numbers_read(line.decode("utf-8", "replace"), found)
            if replaced is not None:
                replaced.append(number)
    except (ValueError, RecursionError):  # not JSON, or absurdly nested
        raise BadEntry("not JSON") from None
    if not isinstance(raw, dict):
        raise BadEntry("not a JSON object")
    fields = cast(dict[str, Any], raw)
    if isinstance(fields.get("type"), str) and is_bookkeeping(fields):
        raise _Bookkeeping
    for key in ("type", "uuid", "sessionId"):
        if not isinstance(fields.get(key), str):
            raise BadEntry(f"no {key}")
    for key in _DESCRIPTIVE:
        if not isinstance(fields.get(key), str):
            fields[key] = ""
    if not isinstance(fields.get("parentUuid", 0), str | None):
        raise BadEntry("no parentUuid")
    fields.setdefault("parentUuid", None)
    if found and long_numbers is not None:  # said of entries kept only: once a line
        long_numbers.append(number)
    return Entry(fields)


def fork_origin(fields: dict[str, Any]) -> tuple[str, str | None] | None:
    """(session id, entry uuid) a fork entry names, None when it names none."""
    origin = fields.get("forkedFrom")
    if (
        isinstance(origin, dict)
        and isinstance(origin.get("sessionId"), str)
        and isinstance(origin.get("uuid"), str | None)
    ):
        return (origin["sessionId"], origin["uuid"])
    return None


def _block_types(fields: dict[str, Any], kind: str) -> set[object] | None:
    """The types of the blocks of an entry of `kind` whose message holds a list of blocks;
    None for any other entry."""
    if fields["type"] != kind:
        return None
    message = fields.get("message")
    content = cast(dict[str, Any], message).get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return None
    return {b.get("type") for b in cast(list[Any], content) if isinstance(b, dict)}


def ends_turn(fields: dict[str, Any]) -> bool:
    types = _block_types(fields, "assistant")
    return types is not None and "tool_use" not in types


def reply_id(fields: dict[str, Any]) -> str | None:
    """An assistant entry's message id (the entries of one reply share it), None for others."""
    if fields["type"] != "assistant":
        return None
    message = fields.get("message")
    found = cast(dict[str, Any], message).get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str) and found else None


def carries_results(fields: dict[str, Any]) -> bool:
    """A user entry whose message carries a tool result."""
    types = _block_types(fields, "user")
    return types is not None and "tool_result" in types
