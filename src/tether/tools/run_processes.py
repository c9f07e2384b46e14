"""The processes a run left behind, told apart from every other process on the machine and
stopped (`tether.tools.run_record` keeps the record they are found by). A process is only ever
signalled when it is certainly the run's: its environment carries one of the run's markers,
well formed (a record damaged or forged into an empty or odd marker names nobody: fail
closed), or it is in a process group the run recorded, checked by the group leader's start
time (a pid alone can be reused); when that leader has gone, each member must have started
after it and no other process may hold the group's id. Processes are opened as pidfds before
they are checked, so the one checked is the one signalled."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from collections.abc import Generator
from pathlib import Path
from typing import TypeGuard

from tether.processes import RUN_MARKER

_MARKER = re.compile(r"[0-9a-f]{32}")
"""A run's marker as `RunRecord.start` makes it (`uuid4().hex`)."""


def valid_marker(value: object) -> TypeGuard[str]:
    """Whether `value` is a marker a run could have made (never empty, never a pattern that
    would match others)."""
    return isinstance(value, str) and _MARKER.fullmatch(value) is not None


def kill_leftovers(markers: list[str], groups: list[tuple[int, int]]) -> int:
    """SIGKILL every process that is certainly the run's (see the module's docstring); how
    many there were. Markers not well formed are ignored."""
    killed: set[int] = set()
    for pgid, start in groups:
        killed.update(_kill_group(pgid, start))
    markers = [m for m in markers if valid_marker(m)]
    if not markers:
        return len(killed)
    wanted = {f"{RUN_MARKER}={marker}".encode() for marker in markers}
    for pid in _all_pids():
        if pid in killed or pid == os.getpid():
            continue
        with _pidfd(pid) as handle:
            if handle is None:
                continue
            start = process_start(pid)
            try:
                environ = Path(f"/proc/{pid}/environ").read_bytes()
            except OSError:
                continue
            # Checked again after the read: the environment was the pidfd's process's.
            if wanted.isdisjoint(environ.split(b"\0")) or process_start(pid) != start:
                continue
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal.pidfd_send_signal(handle, signal.SIGKILL)
                killed.add(pid)
    return len(killed)


def _kill_group(pgid: int, start: int) -> set[int]:
    """The recorded group `pgid` whose leader started at `start`: stopped when it is still
    the run's. A member that left the run's environment (`env -i`) is found by its group."""
    with _pidfd(pgid) as leader:
        if leader is not None:
            if process_start(pgid) != start:
                return set()  # the pid is another process's now: not the run's group
            members = _group_members(pgid)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
                return set(members)
            return set()
    # The leader has gone: each member still in the group is the run's if it started after
    # the leader (a reused group id needs a new leader, and none holds the pid).
    stopped: set[int] = set()
    for pid in _group_members(pgid):
        with _pidfd(pid) as handle:
            begun = process_start(pid)
            if handle is None or begun is None or begun < start or _group_of(pid) != pgid:
                continue
            if os.path.exists(f"/proc/{pgid}"):
                return stopped  # a process has the group's id again: leave the group be
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal.pidfd_send_signal(handle, signal.SIGKILL)
                stopped.add(pid)
    return stopped


def _group_of(pid: int) -> int | None:
    fields = _stat_fields(pid)
    try:
        return int(fields[2]) if fields is not None else None
    except (IndexError, ValueError):
        return None


@contextlib.contextmanager
def _pidfd(pid: int) -> Generator[int | None]:
    """A pidfd of the process that has `pid` now (None when there is none): signals sent
    through it reach that process, never a later one with the same pid."""
    try:
        fd: int | None = os.pidfd_open(pid)
    except (OSError, OverflowError, ValueError):  # gone, or no pid at all (a damaged record)
        fd = None
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def _all_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _group_members(pgid: int) -> list[int]:
    members: list[int] = []
    for pid in _all_pids():
        fields = _stat_fields(pid)
        if fields is not None and fields[2] == str(pgid):
            members.append(pid)
    return members


def process_start(pid: int) -> int | None:
    """When the process started (clock ticks since boot, /proc/<pid>/stat field 22): with the
    pid, what tells a process from a later one that reused its pid. None when it is gone."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (which may hold spaces and
    parentheses): state, ppid, pgrp, ... (field 3 of the file is index 0 here)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()
