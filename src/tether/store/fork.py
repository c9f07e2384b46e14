"""Forking a session: a new file that starts as a copy of the branch another resumes.

The copy is written under a hidden name (`.<id>.forking`, which no listing or lookup sees) and
takes its session's name only once it is whole, fork entry included: a fork cut short (the
disk full, the process killed) is never a session that `-c` would continue in place of the
one it was copied from. One that failed is removed; one whose process died is removed by the
next fork in that directory (its lock is gone with the process).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import TYPE_CHECKING

from tether.protocol import ConfigError, HarnessError
from tether.store.writer import (
    _APPEND,
    _COPY_CHUNK,
    _SESSION_ID,
    MESSAGE_TYPES,
    SessionWriter,
    _lock,
    encode_entry,
)

if TYPE_CHECKING:
    from tether.store.reader import LoadedSession

FORKING_SUFFIX = ".forking"


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
    partial = directory / f".{new_id}{FORKING_SUFFIX}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(directory)
        fd = os.open(partial, _APPEND | os.O_EXCL, 0o600)
    except OSError as e:
        raise HarnessError(f"cannot create session file {path}: {e.strerror or e}") from e
    try:
        _lock(fd, partial)
    except HarnessError:
        os.close(fd)
        raise
    writer = SessionWriter(partial, fd, session_id=new_id, cwd=cwd, last_uuid=None, model=model)
    try:
        _copy(source, writer)
        writer.append("fork", forkedFrom={"sessionId": source.session_id, "uuid": writer.last_uuid})
        if path.exists():
            raise HarnessError(f"a session file already exists at {path}")
        try:
            os.rename(partial, path)  # the lock goes with the open file
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
        if size >= _COPY_CHUNK:
            writer._write(b"".join(chunk))  # pyright: ignore[reportPrivateUsage]
            chunk, size = [], 0
    if chunk:
        writer._write(b"".join(chunk))  # pyright: ignore[reportPrivateUsage]


def _remove_abandoned(directory: Path) -> None:
    """Remove the partial forks of processes that ended before finishing them: nobody holds
    their lock (a fork in progress elsewhere does, and is left alone)."""
    try:
        names = [
            n for n in os.listdir(directory) if n.startswith(".") and n.endswith(FORKING_SUFFIX)
        ]
    except OSError:
        return
    for name in names:
        try:
            fd = os.open(directory / name, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            (directory / name).unlink()
        except OSError:
            pass  # held: a fork in progress; or already gone
        finally:
            os.close(fd)
