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

from tether.processes import RUN_MARKER, exit_said, unmarked
from tether.store.mailbox import Member, MemberBusy, TeamStore
from tether.store.task_records import StoreUnavailable
from tether.teams.claims import (
    DID_NOT_START,
    STARTING_ELSEWHERE,
    STOPPED,
    TEAM_RUN_ENV,
    alive,
    claim_start,
    hold_run_mark,
    in_loop,
    pid_runs,
    process_start,
    run_mark,
    runs_as,
    start_state,
)
from tether.teams.down_fence import down_began, stopped_by_down, team_stopping, wait_out_down
from tether.teams.forked import Child, can_fork, fork, warm
from tether.teams.member_log import log_file, open_log, with_log_tail
from tether.teams.membership import START_WAIT_S
from tether.teams.stop_signals import stops_interrupt

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


class StartInterrupted(Exception):
    """Ctrl+C, SIGTERM or SIGHUP (`signum`) came while `start_members` waited: `told` says
    what became of each member."""

    def __init__(self, told: list[Started], signum: int = signal.SIGINT) -> None:
        super().__init__("interrupted")
        self.told = told
        self.signum = signum


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
    then), did not start: recorded so, and told with its log's end. One another process is
    starting is waited for as long (not ended: its starter ends it at its own bound).

    Ctrl+C, SIGTERM or SIGHUP meanwhile (`StartInterrupted`): the start this process owns
    is cut short as at the bound, so that nothing is left starting with nobody to end it or
    to say what became of it: a member whose loop runs stays (a teammate outlives its `up`),
    one still starting is ended and recorded as not started."""
    started: dict[str, Child] = {}
    told: list[Started] = []
    elsewhere: dict[str, str] = {}
    began = time.time()
    reap()
    claimed: list[Member] = []
    for mate in mates:  # each log writable first: nothing claimed for a start that cannot be
        open_log(project, store.team, mate.name)
    for mate in mates:
        busy = claim_start(store, mate.name, within_s=start_wait_s, plan=plan)
        if busy is not None and busy.startswith(STARTING_ELSEWHERE):
            elsewhere[mate.name] = busy
        elif busy is not None:
            told.append(Started(mate.name, True, f"{mate.name}: {busy}"))
        else:
            claimed.append(mate)
    down = team_stopping(store) if claimed else None
    if down is not None:  # claims given back: the down waits for them (`down_fence`)
        for mate in claimed:
            ended(store, mate.name, 0, started=False)
        if down_began(down) < began:  # under way already: waited for, then started
            wait_out_down(store, down, say)
            args = (project, store, mates)
            return start_members(*args, store_args=store_args, plan=plan, serve=serve,
                                 start_wait_s=start_wait_s, say=say)  # fmt: skip
        told += [Started(m.name, False, f"{m.name}: {stopped_by_down(down)}") for m in claimed]
        claimed = []
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
    looped: set[str] = set()
    with stops_interrupt() as stops:
        try:
            for mate in claimed:
                log = log_file(project, store.team, mate.name)
                argv = ["team", "run", store.team, mate.name, *store_args]
                argv += ["--plan"] if plan else []
                if serve is not None and forking:
                    child = _fork_member(project, store, mate.name, argv, log, serve)
                else:
                    child = _spawn_member(project, store, mate.name, argv, log)
                started[mate.name] = child
                CHILDREN.append(child)
                _name_process(store, mate.name, child.pid)
            waited = [*started, *(f"{name} ({why})" for name, why in elsewhere.items())]
            if waited and say is not None:
                say(f"waiting for {', '.join(waited)} to start (each until its mailbox loop "
                    f"runs, at most {start_wait_s:g} s)")  # fmt: skip
            looped = _wait_loops(store, started, deadline, say)
            told += [_started_elsewhere(store, name, deadline, start_wait_s) for name in elsewhere]
        except KeyboardInterrupt:
            with stops.ignored():
                for mate in claimed:  # claimed, never started: nothing of it runs
                    if mate.name not in started:
                        ended(store, mate.name, 0, started=False)
                cut = [
                    _start_outcome(project, store, n, p, unread[n], start_wait_s, cut=True)
                    for n, p in started.items()
                ]
            raise StartInterrupted(cut, stops.signum) from None
    for name, proc in started.items():
        if name in looped:
            line = f"{name}: started (pid {proc.pid}), {unread[name]} unread message(s)"
            told.append(Started(name, True, line))
        else:
            told.append(_start_outcome(project, store, name, proc, unread[name], start_wait_s))
    return told


def _start_outcome(
    project: Path,
    store: TeamStore,
    name: str,
    proc: Child,
    unread: int,
    start_wait_s: float,
    *,
    cut: bool = False,
) -> Started:
    """What became of a member whose loop was not seen running by the bound (or, `cut`, when
    the wait was interrupted): one still starting is ended first."""
    member = next((m for m in store.members() if m.name == name), None)
    if cut and member is not None and member.pid == proc.pid and in_loop(member):
        line = f"{name}: started (pid {proc.pid}), {unread} unread message(s): it runs"
        return Started(name, True, line)
    late = proc.poll() is None
    if late:  # still starting at the bound: ended, so that "did not start" is true
        _end_child(proc)
    log = log_file(project, store.team, name)
    code = proc.poll()
    how = "still ending" if code is None else exit_said(code)
    if not ended(store, name, proc.pid, started=False):  # its loop ran, then it ended
        line = f"{name}: started (pid {proc.pid}) and ended since ({how})"
        return Started(name, False, with_log_tail(line, log))
    if late:
        cause = (
            "still starting when interrupted" if cut else f"not running after {start_wait_s:g} s"
        )
        how = f"{cause}: {how}"
    return Started(name, False, with_log_tail(f"{name}: did not start ({how})", log))


def _name_process(store: TeamStore, name: str, pid: int) -> None:
    """Write the process just started for `name` into its record (it claims it again itself
    once it runs): a starter killed before that claim (SIGKILL) leaves a record naming the
    process that runs, which `team status`, `up` and `down` then see, not a start claim of a
    dead starter that says nothing runs. Left as it is when the process claimed it first or
    another process of the member runs; the store out of reach: the process claims it."""

    def refused(member: Member) -> str | None:
        if member.pid == pid:
            return "it claimed itself"
        if member.pid is not None and alive(member):
            return "another process runs"
        return None

    changes: dict[str, object] = {
        "pid": pid,
        "pid_started": process_start(pid),
        "host": socket.gethostname(),
    }
    with contextlib.suppress(MemberBusy, StoreUnavailable):
        store.update_member(name, changes, unless=refused)


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


def ended(store: TeamStore, name: str, pid: int, *, started: bool = True) -> bool:
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


def _started_elsewhere(
    store: TeamStore, name: str, deadline: float, start_wait_s: float
) -> Started:
    """Wait, until `deadline` (this start's own bound), for the member another process is
    starting to have its mailbox loop running, or to stop starting (it ended, its start-up
    deadline passed)."""
    seen: list[Member] = []

    def settled(members: list[Member]) -> bool:
        seen[:] = [m for m in members if m.name == name]
        return not seen or in_loop(seen[0]) or start_state(seen[0], time.time()) != "starting"

    with contextlib.suppress(StoreUnavailable):
        store.wait_members(settled, max(0.0, deadline - time.monotonic()), recheck_s=EXIT_RECHECK_S)
    member = seen[0] if seen else None
    if member is not None and in_loop(member):
        return Started(name, True, f"{name}: started by another process (pid {member.pid})")
    if member is not None and start_state(member, time.time()) == "starting":
        pid = f"pid {member.pid}" if member.pid is not None else "no process yet"
        return Started(
            name,
            False,
            f"{name}: still starting after {start_wait_s:g} s ({pid}, started by another "
            "process): `tether team status` shows it, `tether team down` stops it",
        )
    return Started(name, False, f"{name}: another process was starting it, and it did not start")
