"""A teammate's log (`.tether/teams/TEAM/MEMBER.log`, appended across its restarts) and the
bounded tail `team up` and `team status` show of it: the last `TAIL_BYTES` at most, read by
seeking from its end, and only from a regular file (a log that is a device, a pipe or a
directory is named, not read: `/dev/full` or `/dev/zero` never ends)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tether.protocol import ConfigError
from tether.runtime_dir import make_runtime_dir

TAIL_BYTES = 64 * 1024
"""At most this much of a log's end is read: a log grown to gigabytes costs no more."""


def log_file(project: Path, team: str, member: str) -> Path:
    return project / ".tether" / "teams" / team / f"{member}.log"


def open_log(project: Path, team: str, member: str) -> Path:
    """`member`'s log, its folder made and the file made to append to (what its process
    writes to), checked before anything of its start is recorded: a folder or log that cannot
    be (the team's folder a file, the log a directory), a `ConfigError` naming the path."""
    log = log_file(project, team, member)
    try:
        make_runtime_dir(log.parent)
        # O_NONBLOCK: a FIFO with no reader is refused (ENXIO), not waited on.
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
        os.close(os.open(log, flags | getattr(os, "O_CLOEXEC", 0), 0o666))
    except OSError as e:
        where = f"{e.filename}: " if e.filename and Path(e.filename) != log else ""
        raise ConfigError(f"cannot write {member}'s log {log}: {where}{e.strerror}") from None
    return log


def log_tail(path: Path, lines: int) -> list[str] | None:
    """The last `lines` lines of the log at `path` (of its last `TAIL_BYTES` at most, the
    first line cut there left out), None when there is no log to read; a log that is not a
    regular file: one line saying so, unread."""
    try:
        # O_NONBLOCK: opening a FIFO to read does not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return [f"({path} is not a regular file: not read)"]
        start = max(0, info.st_size - TAIL_BYTES)
        data = os.pread(fd, TAIL_BYTES, start)
    except OSError:
        return None
    finally:
        os.close(fd)
    if start > 0 and b"\n" in data:  # the first line begins before what was read
        data = data[data.index(b"\n") + 1 :]
    return data.decode("utf-8", errors="replace").splitlines()[-lines:] if lines > 0 else []


def with_log_tail(line: str, log: Path, lines: int = 20) -> str:
    """The line, then after a colon its log's last lines ("(no log)" when there is none); an
    empty log: the line alone, not a colon followed by nothing."""
    tail = log_tail(log, lines)
    if tail is None:
        return f"{line}:\n(no log)"
    said = "\n".join(tail)
    return f"{line}:\n{said}" if said.strip() else line
