"""One process per member, whatever races: a starter claims the member in the roster (its
`start_claim`) before it starts a process, and a teammate process claims its member (its pid)
before it does anything else; both are atomic in the store (`update_member`'s `unless`), so of
two `tether team up`s at once one starts the teammate and the other is told, and of two
teammate processes of one member one runs and the other stops. Every teammate process carries
its team in its environment (`TEAM_RUN_ENV`), so that `tether team down` finds and ends each
one, even one the roster does not name; a forked one, whose environment as /proc shows it is
its parent's, also holds an anonymous file named by it (`hold_run_mark`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tether.processes import TEAM_RUN_ENV as TEAM_RUN_ENV
from tether.store.mailbox import Member, StartClaim, TeamStore

STARTING_ELSEWHERE = "being started by another process"


def process_start(pid: int) -> str | None:
    """When the process started, in the system's own count (`/proc/<pid>/stat`'s starttime):
    with its pid, names one process; None where there is no /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def pid_runs(pid: int) -> bool:
    """Whether `pid` is a running process: one that ended and waits to be reaped by its
    parent (a lead that started it) is not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc here: the signal's answer stands
    return stat.rsplit(")", 1)[-1].split()[:1] != ["Z"]


def runs_as(pid: int, started: str | None) -> bool:
    """Whether `pid` runs and is the process that started at `started` (`process_start`;
    None: any process of that pid)."""
    if not pid_runs(pid):
        return False
    now = process_start(pid)
    return started is None or now is None or now == started


STOPPED: dict[str, object] = {
    "state": "stopped",
    "pid": None,
    "pid_started": None,
    "loop_pid": None,
    "start_by": None,
    "current_task": None,
}
"""What the roster records of a member whose process ended, however it ended: no process,
and no task under way (one it was given and did not finish is taken up again at its next
start, from its session)."""
DID_NOT_START: dict[str, object] = {**STOPPED, "state": "did_not_start", "start_claim": None}
"""What the roster records of a member whose process ended before its mailbox loop ran (or
was ended, its start-up past its deadline)."""
ENDED_STATES = ("stopped", "did_not_start")
"""The states of a member no process runs for, by its own record."""


def alive(member: Member) -> bool:
    """Whether the member's process runs (known only on its own machine: elsewhere, by its
    record): its pid runs, and is the same process (its start time), not another that took
    the pid since."""
    if member.pid is None:
        return False
    if member.host != socket.gethostname():
        return member.state not in ENDED_STATES
    return runs_as(member.pid, member.pid_started)


def starting_by(member: Member, now: float) -> StartClaim | None:
    """The start claim that holds: not lapsed, its holder still running (elsewhere: until it
    lapses)."""
    claim = member.start_claim
    if claim is None or claim.until <= now:
        return None
    if claim.host == socket.gethostname() and not runs_as(claim.pid, claim.pid_started):
        return None
    return claim


def exited(member: Member) -> bool:
    """A teammate not running whose record says otherwise: its process ended without saying
    so (a crash, SIGKILL, a failure after its claim), or was never started by a starter that
    is gone. One whose starter still starts it is starting."""
    return member.state not in ENDED_STATES and starting_by(member, time.time()) is None


def in_loop(member: Member) -> bool:
    """Whether the member's process runs its mailbox loop (its start-up done): the mark is
    that process's own, not one an earlier process of the member left."""
    return member.loop_pid is not None and member.loop_pid == member.pid and alive(member)


def start_state(member: Member, now: float) -> str | None:
    """What a member recorded `starting` is now: `starting` (its start claimed, or its process
    claimed it, and its mailbox loop not yet running, within its start-up's deadline),
    `did_not_start` (its process ended first, or its start-up ran past the deadline), None
    when it is not starting (its loop runs, or its record says another state)."""
    if member.state != "starting" or in_loop(member):
        return None
    if exited(member) and not alive(member):
        return "did_not_start"
    if member.start_by is not None and now > member.start_by:
        return "did_not_start"
    return "starting"


def claim_start(store: TeamStore, name: str, *, within_s: float, plan: bool) -> str | None:
    """Claim the start of `name`'s process for this process: None when claimed, else why not
    (it runs, or another process is starting it)."""
    from tether.store.mailbox import MemberBusy

    me = os.getpid()
    now = time.time()

    def refusal(member: Member) -> str | None:
        if alive(member) and not in_loop(member):  # started, its start-up not done yet
            return f"{STARTING_ELSEWHERE}: its process is pid {member.pid} on {member.host}"
        if alive(member):
            return f"running already (pid {member.pid} on {member.host})"
        claim = starting_by(member, now)
        if claim is not None and claim.pid != me:
            return f"{STARTING_ELSEWHERE}: pid {claim.pid} on {claim.host} starts it"
        return None

    claim = StartClaim(
        pid=me, pid_started=process_start(me), host=socket.gethostname(), until=now + within_s
    )
    changes: dict[str, object] = {
        "state": "starting",
        "pid": None,
        "pid_started": None,
        "loop_pid": None,
        "start_by": now + within_s,
        "start_claim": claim.model_dump(),
    }
    if plan:
        changes["plan_mode"] = True  # kept: a restart stays read-only until approved
    try:
        store.update_member(name, changes, unless=refusal)
    except MemberBusy as e:
        return str(e)
    return None


def claim_member(store: TeamStore, name: str) -> str | None:
    """A teammate process claims its member before anything else: None when it is the
    member's process now, else why not (another process of the member runs)."""
    claimed = _claim_record(store, name, lambda member: f"{name} runs already as pid {member.pid}")
    return claimed if isinstance(claimed, str) else None


def claim_lead(store: TeamStore, name: str) -> Member | str:
    """A session claims the lead of its team (a lease as a teammate's `claim_member`: its pid
    and start time in the lead's record), so that one live session leads a team: its member
    record when it leads now, else who leads (another session, still running)."""
    return _claim_record(store, name, lambda member: f"pid {member.pid}")


def _claim_record(store: TeamStore, name: str, holder: Callable[[Member], str]) -> Member | str:
    """This process's pid, start time and host written into `name`'s record unless another
    live process holds it: the record, or who holds it (`holder`, then its host)."""
    from tether.store.mailbox import MemberBusy

    me = os.getpid()

    def refusal(member: Member) -> str | None:
        if member.pid is not None and member.pid != me and alive(member):
            return f"{holder(member)} on {member.host}"
        return None

    changes = {
        "pid": me,
        "pid_started": process_start(me),
        "host": socket.gethostname(),
        "start_claim": None,
    }
    try:
        return store.update_member(name, changes, unless=refusal)
    except MemberBusy as e:
        return str(e)


def run_mark(store: TeamStore, member: str) -> str:
    return json.dumps([store.url, store.team, member])


_HELD_MARKS: list[int] = []
"""The descriptors of the marks this process holds (for its lifetime)."""


def _mark_name(url: str, team: str, member: str) -> str:
    """A memfd's name (at most 249 bytes): the store and team digested, the member as it is
    (a member name is at most 64 characters)."""
    digest = hashlib.sha256(json.dumps([url, team]).encode()).hexdigest()[:32]
    return f"{TEAM_RUN_ENV}={digest}:{member}"


def hold_run_mark(mark: str) -> None:
    """Mark this process as the teammate `mark` (`run_mark`) where /proc shows it: a forked
    process's /proc environment is the one its parent was started with, so it holds an
    anonymous file (memfd, closed on exec) named by the mark, which `team_processes` reads
    in /proc/<pid>/fd. Nothing where there is no memfd."""
    url, team, member = json.loads(mark)
    if hasattr(os, "memfd_create"):
        with contextlib.suppress(OSError):
            _HELD_MARKS.append(os.memfd_create(_mark_name(url, team, member)))


@dataclass(frozen=True)
class TeamProcess:
    pid: int
    started: str | None
    member: str


def team_processes(store: TeamStore) -> list[TeamProcess]:
    """Every teammate process of this team on this machine (by the mark its starter put in
    its environment, or a forked one holds: `hold_run_mark`), whatever the roster says."""
    found: list[TeamProcess] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    forked = "/memfd:" + _mark_name(store.url, store.team, "")
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        member = _environ_mark(pid, store) or _held_mark(pid, forked)
        if member is not None and pid_runs(pid):
            found.append(TeamProcess(pid, process_start(pid), member))
    # A teammate's own child carries its mark a moment (forked, not yet past exec, it holds
    # the memfd too): the teammate is its process, not each of its children.
    members = {(p.pid, p.member) for p in found}
    return [p for p in found if (_parent(p.pid), p.member) not in members]


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _environ_mark(pid: int, store: TeamStore) -> str | None:
    """The member whose mark for this team `pid`'s environment carries."""
    prefix = f"{TEAM_RUN_ENV}=".encode()
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    for item in environ.split(b"\0"):
        if not item.startswith(prefix):
            continue
        try:
            url, team, member = json.loads(item[len(prefix) :].decode())
        except (ValueError, UnicodeDecodeError):
            return None
        return str(member) if url == store.url and team == store.team else None
    return None


def _held_mark(pid: int, prefix: str) -> str | None:
    """The member whose mark for this team `pid` holds as a memfd (`hold_run_mark`)."""
    fds = Path(f"/proc/{pid}/fd")
    try:
        names = os.listdir(fds)
    except OSError:
        return None
    for name in names:
        with contextlib.suppress(OSError):
            target = os.readlink(fds / name)
            if target.startswith(prefix):
                return target[len(prefix) :].removesuffix(" (deleted)")
    return None
