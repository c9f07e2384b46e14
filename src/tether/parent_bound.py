"""Run a command so that it and everything it starts end when a given process dies, however
it dies (SIGKILL included): `python -I -S parent_bound.py PARENT_PID COMMAND ARGS...`.

The kernel's parent-death signal kills one process, not its children: a server started
through `npx` (npx, then node) or `uv run` would leave its real work orphaned. So this stays
as the command's parent, the leader of its process group and a child subreaper (orphaned
descendants come to it rather than to init), and on the parent's death kills every
descendant, then the group. Otherwise it waits for the command and exits as it did; the
signals that ask a process to end are passed on to it.

A script of the standard library alone (started with `-S`, no tether import): it runs in
every stdio MCP server a teammate starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from types import FrameType

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PARENT_DIED = signal.SIGRTMIN + 3
"""The shim's own parent-death signal: caught (SIGKILL would end the shim alone), and one no
server is sent by anything else."""
_PASSED_ON = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option})")


def _live_descendants() -> list[int]:
    """Every live (not zombie) process under this one, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        if fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    pending = [os.getpid()]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def _reap_all() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass


def end_everything() -> None:
    """SIGKILL every descendant until none is left (one that forks meanwhile, or is orphaned
    onto this subreaper, is found by the next round), then the process group, this one too."""
    while descendants := _live_descendants():
        for pid in descendants:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _reap_all()
    os.killpg(0, signal.SIGKILL)


def main(parent: int, argv: list[str]) -> int:
    if os.getpgrp() != os.getpid():
        os.setpgid(0, 0)  # a group of its own: the one `end_everything` ends
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)

    def parent_died(signum: int, frame: FrameType | None) -> None:
        if os.getppid() != parent:  # not a stray signal
            end_everything()

    signal.signal(_PARENT_DIED, parent_died)
    _prctl(_PR_SET_PDEATHSIG, _PARENT_DIED)
    if os.getppid() != parent:  # it died before the prctl
        end_everything()
    command = os.fork()
    if command == 0:
        signal.signal(_PARENT_DIED, signal.SIG_DFL)
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # this shim killed: the command too
        try:
            os.execvp(argv[0], argv)
        except OSError as error:
            print(f"{argv[0]}: {error.strerror}", file=sys.stderr)
            os._exit(127)

    def pass_on(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(command, signum)

    for asked in _PASSED_ON:
        signal.signal(asked, pass_on)
    code = os.waitstatus_to_exitcode(os.waitpid(command, 0)[1])
    return code if code >= 0 else 128 - code  # killed by signal N: 128 + N, as a shell says


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2:]))
