"""Teammates' processes: started in the background (`tether team run`), found alive by their
pid (on this machine), asked to shut down and then stopped; and the team's status.

A starter that has a teammate's `main` to give (`tether team up`: `serve`) and may fork
(`tether.teams.forked.can_fork`) forks every teammate from itself at once: no interpreter to
start, and what the starter imported (settings, the store) not imported again. Each child
imports what its session runs itself, side by side with the others, while `up` waits (bounded,
said) for each to have its mailbox loop running (`loop_pid`, its own mark), so that what it
reports of each is true: started, or did not start (ended first, or still starting at the
bound: ended then), recorded so. The child is what `Popen`
would have made (a session of its own, stdin from /dev/null, output to its log, the project
as its directory, its `TEAM_RUN_ENV` mark, which /proc shows by `hold_run_mark`), and the
stores its parent had open are not its own: a SQLite connection is closed across the fork
and opened again on each side (`tether.sqlite_files.ForkSafeDb`), a Redis client's pool
starts new connections in the child (redis-py's own pid check). A lead's session (threads:
no fork) starts each as a new `tether team run` process."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.processes import RUN_MARKER, unmarked
from tether.store.mailbox import Member, MemberBusy, Message, TeamStore
from tether.store.task_records import StoreUnavailable
from tether.teams.claims import (
    DID_NOT_START,
    STARTING_ELSEWHERE,
    STOPPED,
    TEAM_RUN_ENV,
    TeamProcess,
    alive,
    claim_start,
    exited,
    hold_run_mark,
    in_loop,
    pid_runs,
    process_start,
    run_mark,
    runs_as,
    start_state,
    team_processes,
)
from tether.teams.forked import Child, can_fork, fork, warm
from tether.teams.member_log import log_file, log_tail, open_log
from tether.teams.membership import START_WAIT_S

__all__ = ["alive", "pid_runs", "process_start", "runs_as"]

LEAD = "team-lead"
EXIT_RECHECK_S = 0.25
"""How often a starter waiting for a claim looks whether the process ended instead."""
STOP_GRACE_S = 10.0
"""After SIGTERM, how long a teammate has to save and stop before SIGKILL."""

Serve = Callable[[list[str]], int]
"""`tether team`'s `main`: a teammate's arguments after `team` (`run TEAM MEMBER ...`) -> its
exit code."""

CHILDREN: list[Child] = []
"""Teammates this process started: kept, since they are meant to outlive their `Popen` (a
lead's session goes on after starting them), and polled at each start to reap those that
ended."""


def reap() -> None:
    """Collect the teammates this process started that have ended."""
    CHILDREN[:] = [child for child in CHILDREN if child.poll() is None]


@dataclass(frozen=True)
class Started:
    name: str
    ok: bool
    line: str
    """What happened, for the user (a failure with its log's end)."""


BEFORE_CLAIM = ("tether.cli.teammate_check", "tether.cli.session_place", "tether.cli.model_options")
"""What a teammate process runs before it claims its member (`tether team run`: its agent and
model checked): `up` waits for the claim."""


def start_members(
    project: Path,
    store: TeamStore,
    mates: list[Member],
    *,
    store_args: list[str],
    plan: bool,
    serve: Serve | None = None,
    start_wait_s: float = START_WAIT_S,
    say: Callable[[str], None] | None = None,
) -> list[Started]:
    """Start every member whose process is not running, all at once (forked from this
    process to run `serve` where it can fork, else new processes), and wait, `start_wait_s`
    at most (`say` tells it), for each to have its mailbox loop running (`loop_pid`): started
    only then. One whose process ended first, or that is still starting at the bound (ended
    then), did not start: recorded so, and told with its log's end."""
    started: dict[str, Child] = {}
    told: list[Started] = []
    elsewhere: list[str] = []
    reap()
    claimed: list[Member] = []
    for mate in mates:  # each log writable first: nothing claimed for a start that cannot be
        open_log(project, store.team, mate.name)
    for mate in mates:
        busy = claim_start(store, mate.name, within_s=start_wait_s, plan=plan)
        if busy is not None and busy.startswith(STARTING_ELSEWHERE):
            elsewhere.append(mate.name)
        elif busy is not None:
            told.append(Started(mate.name, True, f"{mate.name}: {busy}"))
        else:
            claimed.append(mate)
    # Forked at once, each importing what its session runs itself, side by side: `up` does
    # not import it first (it runs no session). What each runs before its claim is imported
    # here once (with the models' validators built): no child imports and builds it again.
    forking = serve is not None and can_fork()
    if forking and claimed:
        warm(BEFORE_CLAIM)
    # Counted as `team status` counts them, before any process of theirs could read one: what
    # it held when it stopped (a turn it will run again) is unread still.
    unread = {mate.name: store.unread(mate.name) for mate in claimed}
    deadline = time.monotonic() + start_wait_s
    for mate in claimed:
        log = log_file(project, store.team, mate.name)
        argv = ["team", "run", store.team, mate.name, *store_args, *(["--plan"] if plan else [])]
        if serve is not None and forking:
            started[mate.name] = _fork_member(project, store, mate.name, argv, log, serve)
        else:
            started[mate.name] = _spawn_member(project, store, mate.name, argv, log)
        CHILDREN.append(started[mate.name])
    if started and say is not None:
        names = ", ".join(started)
        say(f"waiting for {names} to start (each until its mailbox loop runs, at most "
            f"{start_wait_s:g} s)")  # fmt: skip
    looped = _wait_loops(store, started, deadline, say)
    for name, proc in started.items():
        if name in looped:
            line = f"{name}: started (pid {proc.pid}), {unread[name]} unread message(s)"
            told.append(Started(name, True, line))
            continue
        late = proc.poll() is None
        if late:  # still starting at the bound: ended, so that "did not start" is true
            _end_child(proc)
        log = log_file(project, store.team, name)
        if not _ended(store, name, proc.pid, started=False):  # its loop ran, then it ended
            line = f"{name}: started (pid {proc.pid}) and ended since (exit {proc.poll()}):"
            told.append(Started(name, False, f"{line}\n{_tail(log)}"))
            continue
        why = f"not running after {start_wait_s:g} s: ended" if late else "exit"
        told.append(
            Started(name, False, f"{name}: did not start ({why} {proc.poll()}):\n{_tail(log)}")
        )
    for name in elsewhere:
        told.append(_started_elsewhere(store, name))
    return told


def _wait_loops(
    store: TeamStore, started: dict[str, Child], deadline: float, say: Callable[[str], None] | None
) -> set[str]:
    """Wait until each process `started` runs its mailbox loop or has ended, until
    `deadline`: the names whose loop runs. The store out of reach meanwhile is said and
    read again until the deadline (a teammate waits it out too)."""
    looped: set[str] = set()

    def settled(members: list[Member]) -> bool:
        for m in members:
            proc = started.get(m.name)
            if proc is not None and m.pid == proc.pid and m.loop_pid == proc.pid:
                looped.add(m.name)
        return all(n in looped or p.poll() is not None for n, p in started.items())

    said = False
    while started and (left := deadline - time.monotonic()) > 0:
        # Woken by the roster's changes (each mark is one); an end, seen at the rechecks.
        try:
            store.wait_members(settled, left, recheck_s=EXIT_RECHECK_S)
            break
        except StoreUnavailable as e:
            if not said and say is not None:
                say(f"{e}: reading it again until it answers (for {left:.0f} s at most)")
            said = True
            if all(n in looped or p.poll() is not None for n, p in started.items()):
                break
            time.sleep(min(EXIT_RECHECK_S, max(0.0, deadline - time.monotonic())))
    return looped


def _end_child(proc: Child) -> None:
    """End a teammate process still starting: SIGTERM (it stops where it is, its session
    saved), then SIGKILL to its process group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # it leads its own session
        proc.wait()


def _spawn_member(project: Path, store: TeamStore, name: str, argv: list[str], log: Path) -> Child:
    with log.open("ab") as out:
        popen = subprocess.Popen(
            [sys.executable, "-m", "tether", *argv],
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            # Not the lead's run marker: a teammate outlives the run that starts it.
            env={**unmarked(os.environ), TEAM_RUN_ENV: run_mark(store, name)},
        )
    return Child(popen.pid, popen)


def _fork_member(
    project: Path, store: TeamStore, name: str, argv: list[str], log: Path, serve: Serve
) -> Child:
    mark = run_mark(store, name)

    def prepare() -> None:  # what `_spawn_member`'s Popen gives its child
        os.setsid()
        out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        os.close(devnull)
        # A new process of one thread setting its own directory before it runs anything,
        # as Popen's `cwd` does in its child: no call in flight to lose its place.
        os.chdir(project)  # noqa: TID251
        os.environ[TEAM_RUN_ENV] = mark  # for the commands it runs
        os.environ.pop(RUN_MARKER, None)  # nor the lead's run marker (`_spawn_member`)
        hold_run_mark(mark)  # for itself: /proc shows the environment it was forked with
        CHILDREN.clear()  # its parent's children, not its own
        sys.argv = [sys.argv[0], *argv]

    return fork(prepare, lambda: serve(argv[1:]))


def _ended(store: TeamStore, name: str, pid: int, *, started: bool = True) -> bool:
    """The process started for `name` ended without saying so: `stopped`, or `did not start`
    when its mailbox loop never ran (`started=False`: it had not started as far as its
    starter knows). False when its record is another's (another process of the member runs)
    or says it started (it ran its loop; what it wrote then stands); the store out of reach:
    nothing written (its start-up deadline says it did not start)."""

    def refused(member: Member) -> str | None:
        if member.pid != pid and alive(member):
            return "another process runs"
        if not started and member.loop_pid == pid:
            return "it started"
        return None

    changes = {**(STOPPED if started else DID_NOT_START), "start_claim": None}
    try:
        store.update_member(name, changes, unless=refused)
    except MemberBusy:
        return False
    except StoreUnavailable:
        return not started
    return True


def _started_elsewhere(store: TeamStore, name: str) -> Started:
    """Wait for the process another starter is starting to have its mailbox loop running
    (or to end, or its start-up deadline to pass)."""
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        member = next((m for m in store.members() if m.name == name), None)
        if member is None:
            break
        if in_loop(member):
            return Started(name, True, f"{name}: started by another process (pid {member.pid})")
        if start_state(member, time.time()) != "starting":
            break
        time.sleep(0.05)
    return Started(name, False, f"{name}: another process was starting it, and it did not start")


def _tail(path: Path, lines: int = 20) -> str:
    tail = log_tail(path, lines)
    return "(no log)" if tail is None else "\n".join(tail)


async def down(store: TeamStore, project: Path, *, wait_s: float) -> int:
    """Ask every running teammate to shut down, wait for each to stop, then stop the rest."""
    here = socket.gethostname()
    mates = [m for m in store.members() if m.name != LEAD]
    running = [m for m in mates if alive(m)]
    for mate in mates:
        if mate not in running and exited(mate):  # its record said otherwise: stopped now
            _ended(store, mate.name, mate.pid or 0, started=mate.state != "starting")
            log = log_file(project, store.team, mate.name).relative_to(project)
            print(f"{mate.name}: nothing was running (it had exited: see {log})")
    asked: dict[str, str] = {}
    for mate in running:
        sent = store.send(Message(sender=LEAD, recipient=mate.name, kind="shutdown_request"))
        asked[mate.name] = sent.id
        print(f"{mate.name}: asked to shut down")
    await asyncio.gather(
        *(_stop(store, m, wait_s, asked[m.name]) for m in running if m.host == here)
    )
    for mate in running:
        if mate.host != here:
            print(f"{mate.name}: runs on {mate.host}: asked only")
    # Whatever the roster says: every process of the team here (one the roster never named,
    # one still starting) is ended too.
    others = await asyncio.to_thread(team_processes, store)
    await asyncio.gather(*(_end(p) for p in others))
    if not running and not others:
        print(f"nothing of team {store.team} was running")
    return 0


async def _end(process: TeamProcess) -> None:
    """End a teammate process the roster does not name: SIGTERM (its session saved), then
    SIGKILL to its process group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while runs_as(process.pid, process.started):
        if time.monotonic() >= deadline:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(process.pid) == process.pid:
                    os.killpg(process.pid, signal.SIGKILL)
                else:
                    os.kill(process.pid, signal.SIGKILL)
            print(f"{process.member}: another process of it (pid {process.pid}) killed (SIGKILL)")
            return
        await asyncio.sleep(0.05)
    print(f"{process.member}: another process of it (pid {process.pid}) stopped")


async def _stop(store: TeamStore, mate: Member, wait_s: float, request: str) -> None:
    """Wait for the teammate to stop, then SIGTERM, then SIGKILL. However it stopped, the
    shutdown it was asked for is done: recorded, so that the request, if it was never read,
    is not replayed on the next start."""
    assert mate.pid is not None
    if await _gone(mate, wait_s):
        said = "stopped"
    else:
        _signal(mate, signal.SIGTERM)
        if await _gone(mate, STOP_GRACE_S):
            said = f"stopped (SIGTERM after {wait_s:g} s)"
        else:
            _signal(mate, signal.SIGKILL)
            said = "killed (SIGKILL)"
    changes: dict[str, Any] = {"shutdown_done": request}
    if said.startswith("killed"):
        changes |= STOPPED
    await asyncio.to_thread(store.update_member, mate.name, changes)
    print(f"{mate.name}: {said}")


async def _gone(mate: Member, within_s: float) -> bool:
    """Whether the teammate's process ended within `within_s`. Its process, not its record:
    a teammate that wrote "stopped" may still run (a SessionEnd hook), and one that lingers
    unreaped as its starter's child has ended."""
    assert mate.pid is not None
    deadline = time.monotonic() + within_s
    while runs_as(mate.pid, mate.pid_started):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def _signal(mate: Member, signum: signal.Signals) -> None:
    """Signal the teammate's process, if it is still the one recorded (a pid used again by
    another process is left alone); SIGKILL goes to its process group (it leads one: `up`
    starts it in a session of its own), so that the commands it started go with it."""
    assert mate.pid is not None
    if not runs_as(mate.pid, mate.pid_started):
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if signum == signal.SIGKILL and os.getpgid(mate.pid) == mate.pid:
            os.killpg(mate.pid, signum)
        else:
            os.kill(mate.pid, signum)
