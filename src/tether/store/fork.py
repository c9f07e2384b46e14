"""Forking a session: a new file that starts as a copy of the branch another resumes.

The copy is written under a hidden name (`.<id>.forking`, which no listing or lookup sees) and
takes its session's name only once it is whole, fork entry included: a fork cut short (the
disk full, the process killed) is never a session that `-c` would continue in place of the
one it was copied from. One that failed is removed; one whose process died is removed when a
session next starts, continues or forks in that directory (see `partial`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from tether.protocol import ConfigError, HarnessError
from tether.store.entry_encoding import encode_entry
from tether.store.held_file import APPEND
from tether.store.partial import (
    COPY_CHUNK,
    FORKING_SUFFIX,
    partial_path,
    put_in_place,
    remove_abandoned,
)
from tether.store.session_lock import lock_session_file
from tether.store.writer import (
    _SESSION_ID,
    MESSAGE_TYPES,
    SessionWriter,
)

if TYPE_CHECKING:
    from tether.store.reader import LoadedSession


def fork_session(
    source: LoadedSession, directory: Path, new_id: str, *, cwd: Path, model: str | None = None
) -> SessionWriter:
    """Start session `new_id` as a copy of the branch `source` resumes (same uuids, the new
    session id, each entry's parent the one copied before it), then a fork entry naming the
    source and its last entry. The source file is only read. Raises HarnessError (nothing
    left behind) when the copy cannot be written whole."""
    if not _SESSION_ID.fullmatch(new_id):
        raise ConfigError(f"invalid session id {new_id!r}: use letters, digits, '.', '_' and '-'")
    path = directory / f"{new_id}.jsonl"
    partial = partial_path(path, FORKING_SUFFIX)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        remove_abandoned(directory)
        fd = os.open(partial, APPEND | os.O_EXCL, 0o600)
    except OSError as e:
        raise HarnessError(f"cannot create session file {path}: {e.strerror or e}") from e
    try:
        lock_session_file(fd, partial)
    except HarnessError:
        os.close(fd)
        raise
    writer = SessionWriter(partial, fd, session_id=new_id, cwd=cwd, last_uuid=None, model=model)
    try:
        _copy(source, writer)
        writer.append("fork", forkedFrom={"sessionId": source.session_id, "uuid": writer.last_uuid})
        try:
            put_in_place(partial, path)  # the lock goes with the open file
        except FileExistsError as e:
            raise HarnessError(f"session id {new_id} is already in use (its file is {path})") from e
        except OSError as e:
            raise HarnessError(f"cannot create session file {path}: {e.strerror or e}") from e
    except BaseException:
        writer.close()
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    writer.path = path
    return writer


def _copy(source: LoadedSession, writer: SessionWriter) -> None:
    chunk: list[bytes] = []
    size = 0
    for fields in source.raw_lines():
        line = encode_entry(
            {**fields, "sessionId": writer.session_id, "parentUuid": writer.last_uuid}
        )
        chunk.append(line)
        size += len(line)
        if fields["type"] in MESSAGE_TYPES:
            writer.last_uuid = fields["uuid"]
        if size >= COPY_CHUNK:
            writer._write(b"".join(chunk))  # pyright: ignore[reportPrivateUsage]
            chunk, size = [], 0
    if chunk:
        writer._write(b"".join(chunk))  # pyright: ignore[reportPrivateUsage]
