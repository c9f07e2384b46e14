"""What a session leaves on the machine while it runs, written down as it happens, so that
whatever a tether killed without warning (SIGKILL, a power cut of the terminal) left behind is
found and removed by the next tether that starts: its commands still running, its half-written
temporary files, its scratch directory.

Each run of a session keeps a record, `$TETHER_HOME/runs/<id>.jsonl`, one JSON object a line:
the first says who owns it (pid, start time, the scratch directory, the marker its commands
carry in their environment); then a line per process group started, a command's or a hook's
(`{"group": pgid, "start": ticks}`: a hook's child that cleared its environment, `env -i`,
keeps its group though it lost the marker) and per temporary file about to be made
(`{"tmp": path}`). Lines are appended with single writes and never synced: what a killed
process wrote is in the kernel's cache already (only a crash of the machine loses it, and that
also ends the commands).

The owner holds an exclusive `flock` on its record for as long as it lives; the lock dies with
it. The next tether start takes the lock of every record it can (`reap_dead_runs`): the owner
is dead, so it stops what is left of its commands, removes its temporary files and scratch
directory, and deletes the record. A process is only ever killed when it is certainly one of
the dead run's (`tether.tools.run_processes`; a record whose marker is not one a run makes
names nobody): its environment carries the run's marker (`TETHER_RUN`, set in the run's own
environment as it starts and so inherited by every child and descendant: commands, hooks, MCP
servers, helpers; a child given an environment of its own gets it with
`tether.processes.run_marked`), or it is in a recorded process group whose leader is alive
with the recorded start time (a pid alone can be reused). Processes are opened as pidfds
before they are checked, so the one checked is the one signalled. A run that ends (normally,
on SIGTERM or Ctrl+C) stops the same way what carries its marker before it removes its record:
a command's child that made a session of its own (`setsid`) outlives the process groups that
were stopped. One that also dropped the marker (`env -i setsid cmd &`) is found by neither,
and outlives the run: the limit, and why a child subreaper does not lift it, is in
`tether/hooks/README.md` (What a command hook leaves running).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import shutil
import stat
import uuid
from pathlib import Path
from typing import Any

from tether import bounded_json
from tether.processes import RUN_MARKER, record_groups_with
from tether.slotted import Slotted
from tether.tools.run_processes import kill_leftovers, process_start, valid_marker

MARKER_VARIABLE = RUN_MARKER
"""Set in the environment of every process a run starts (in this process's own environment
while the run lives, so that every child inherits it: hooks, MCP servers, helpers)."""

_TEMP_NAME = re.compile(r"\..*\.[0-9a-f]{8}\.tether-tmp|\.tether-[0-9a-f]{16}\.tether-tmp")


def runs_dir(home: Path) -> Path:
    return home / "runs"


def scratch_root(home: Path) -> Path:
    return home / "scratch"


class RunRecord:
    """The live side: this run's record, locked while it lives. Made with `start`."""

    def __init__(self, path: Path, fd: int, marker: str, scratch_dir: Path) -> None:
        self.path = path
        self.marker = marker
        self.scratch_dir = scratch_dir
        self._fd: int | None = fd
        self._outer: str | None = None
        """The marker this process's environment had before (a tether started by a command
        of another run's), given back when this run ends."""
        self._adopted: list[str] = []
        self._groups: list[tuple[int, int]] = []
        self._handed_over = False

    @classmethod
    def start(cls, home: Path, *, scratch_dir: Path, session_id: str) -> RunRecord:
        """Create and lock the record (before the scratch directory is made, so that a
        directory without a record is never one a live run is about to use)."""
        directory = runs_dir(home)
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # mkdir's way of saying a file is in the way
            raise NotADirectoryError(errno.ENOTDIR, f"{directory} is not a directory") from None
        run_id = uuid.uuid4().hex
        path = directory / f"{run_id}.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
        # Without locks on this file system, liveness falls back to pid and start time.
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        record = cls(path, fd, run_id, scratch_dir)
        record._outer = os.environ.get(MARKER_VARIABLE)
        os.environ[MARKER_VARIABLE] = run_id  # every child from now on carries it
        record_groups_with(record.process_group)  # hooks' groups, which `env -i` cannot leave
        own = process_start(os.getpid())
        record._append(
            {
                "pid": os.getpid(),
                "start": own,
                "session": session_id,
                "scratch": str(scratch_dir),
                "marker": run_id,
            }
        )
        return record

    def environment(self) -> dict[str, str]:
        """What a command's environment gets, so that it can be recognised later."""
        return {MARKER_VARIABLE: self.marker}

    def hand_over(self) -> str:
        """This run's processes go on in the next run of this process (`/clear` keeps the MCP
        servers, and what the commands started): its end leaves them be; the next run adopts
        them (`adopt`) with the marker returned."""
        self._handed_over = True
        return self.marker

    def adopt(self, marker: str) -> None:
        """The processes carrying `marker` (a run this process ended, `hand_over`) are this
        run's: stopped at its end, or at the next start if it is killed."""
        self._adopted.append(marker)
        self._append({"adopted": marker})

    def temp_file(self, path: Path) -> None:
        """A temporary file is about to be made at `path` (written down first)."""
        self._append({"tmp": str(path)})

    def process_group(self, pid: int) -> None:
        """A command started as the leader of process group `pid`."""
        start = process_start(pid)
        if start is not None:
            self._groups.append((pid, start))
            self._append({"group": pid, "start": start})

    def close(self) -> int:
        """The run ended (normally, or on SIGTERM or Ctrl+C): stop what its commands left
        running (a process that made a session of its own, `setsid`, is in no group that was
        stopped, but carries the run's marker), then remove its scratch directory and its
        record. How many processes were stopped."""
        if self._fd is None:
            return 0
        stopped = (
            0 if self._handed_over else kill_leftovers([self.marker, *self._adopted], self._groups)
        )
        record_groups_with(None, unless=self.process_group)
        if os.environ.get(MARKER_VARIABLE) == self.marker:  # not a later run's of this process
            if self._outer is None:
                os.environ.pop(MARKER_VARIABLE, None)
            else:
                os.environ[MARKER_VARIABLE] = self._outer
        _remove_scratch(self.scratch_dir, self.scratch_dir.parent)
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None
        return stopped

    def _append(self, entry: dict[str, Any]) -> None:
        if self._fd is None:
            return
        line = (json.dumps(entry, ensure_ascii=True) + "\n").encode()
        with contextlib.suppress(OSError):  # a full disk must not stop the work itself
            os.write(self._fd, line)


class Reaped(Slotted):
    """What was cleaned up after one dead run."""

    __slots__ = ("killed", "pid", "scratch_removed", "session", "temp_files")
    pid: int
    session: str
    killed: int
    temp_files: list[Path]
    scratch_removed: bool

    def __init__(
        self,
        pid: int,
        session: str,
        killed: int = 0,
        temp_files: list[Path] | None = None,
        scratch_removed: bool = False,
    ) -> None:
        self.pid = pid
        self.session = session
        self.killed = killed
        self.temp_files = [] if temp_files is None else temp_files
        self.scratch_removed = scratch_removed

    def notice(self) -> str | None:
        """One line for the user, or None when there was nothing worth saying."""
        done: list[str] = []
        if self.killed:
            done.append(f"stopped {self.killed} process(es) it left running")
        if self.temp_files:
            done.append(f"removed {len(self.temp_files)} half-written temporary file(s)")
        if not done:
            return None
        return (
            f"an earlier tether (pid {self.pid}, session {self.session}) was killed without "
            f"cleaning up: {' and '.join(done)}."
        )


def reap_dead_runs(home: Path) -> list[Reaped]:
    """Clean up after every run whose owner is dead (see the module's docstring)."""
    directory = runs_dir(home)
    try:
        paths = sorted(directory.glob("*.jsonl"))
    except OSError:
        return []
    reaped: list[Reaped] = []
    for path in paths:
        result = _reap(path, scratch_root(home))
        if result is not None:
            reaped.append(result)
    return reaped


def stop_commands_of(home: Path, pid: int) -> int:
    """SIGKILL the commands that the live runs of process `pid` (on this machine) started:
    what a newer holder of their work does when `pid` has lost it (a paused worker whose
    lease ran out) and must not write any more. Their records stay (their owner closes them).
    How many processes were stopped."""
    try:
        paths = sorted(runs_dir(home).glob("*.jsonl"))
    except OSError:
        return 0
    start = process_start(pid)
    killed = 0
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            entries = _entries(fd)
        finally:
            os.close(fd)
        owner = entries[0] if entries else {}
        if start is None or owner.get("pid") != pid or owner.get("start") != start:
            continue
        killed += kill_leftovers(*_markers_and_groups(entries))
    return killed


def _reap(path: Path, scratch: Path) -> Reaped | None:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None  # its owner is alive
        except OSError:
            locked = False
        else:
            locked = True
        entries = _entries(fd)
        owner = entries[0] if entries else {}
        pid, start = owner.get("pid"), owner.get("start")
        if not locked and isinstance(pid, int) and process_start(pid) == start:
            return None  # no locks here, and the owner is still running
        result = Reaped(pid if isinstance(pid, int) else 0, str(owner.get("session", "?")))
        result.killed = kill_leftovers(*_markers_and_groups(entries))
        for entry in entries:
            temp = entry.get("tmp")
            if isinstance(temp, str) and _remove_temp(Path(temp)):
                result.temp_files.append(Path(temp))
        scratch_dir = owner.get("scratch")
        if isinstance(scratch_dir, str):
            result.scratch_removed = _remove_scratch(Path(scratch_dir), scratch)
        with contextlib.suppress(OSError):
            path.unlink()
        return result
    finally:
        os.close(fd)


def _entries(fd: int) -> list[dict[str, Any]]:
    with os.fdopen(os.dup(fd), "rb") as file:
        entries: list[dict[str, Any]] = []
        for line in file:
            try:
                value = bounded_json.loads(line)
            except ValueError:
                continue  # a line cut short by the kill
            if isinstance(value, dict):
                entries.append(value)  # pyright: ignore[reportUnknownArgumentType]
        return entries


PID_MAX_LIMIT = 2**22
"""Linux's highest possible process id: a recorded group past it is damage, not a group."""


def _markers_and_groups(
    entries: list[dict[str, Any]],
) -> tuple[list[str], list[tuple[int, int]]]:
    """A record's markers (its own, and those it adopted) and its process groups."""
    owner = entries[0] if entries else {}
    if not valid_marker(owner.get("marker")):
        return [], []  # damaged or forged: it names no process for certain (fail closed)
    markers = [owner.get("marker"), *(e.get("adopted") for e in entries[1:])]
    groups = [
        (e["group"], e["start"])
        for e in entries
        if isinstance(e.get("group"), int)
        and not isinstance(e.get("group"), bool)
        and 1 < e["group"] <= PID_MAX_LIMIT
        and isinstance(e.get("start"), int)
        and 0 <= e["start"] < 2**63
    ]
    return [m for m in markers if valid_marker(m)], groups


def _remove_temp(path: Path) -> bool:
    """Remove a temporary file of tether's: recognisably named, a regular file (never
    followed through a link). True when one was there and is gone."""
    if not path.is_absolute() or _TEMP_NAME.fullmatch(path.name) is None:
        return False
    try:
        st = path.lstat()
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    try:
        path.unlink()
    except OSError:
        return False
    return True


def _remove_scratch(directory: Path, root: Path) -> bool:
    """Remove a run's scratch directory: only ever a directory right below tether's scratch
    root, removed without following links out of it."""
    if directory.parent != root or not directory.name or directory.is_symlink():
        return False
    if not directory.exists():
        return False
    shutil.rmtree(directory, ignore_errors=True)
    return not directory.exists()
