"""`tether team down`: every teammate asked to shut down, waited for, then stopped; one still
starting stopped at once; and every other process of the team here ended.

A teammate still starting (its mailbox loop not running yet) has no turn under way and no
message taken: it could read the shutdown request only once started, after its MCP servers
connect and its session is built, so waiting for it to answer would wait out `--wait` for
nothing. It is sent SIGTERM at once, which it handles from its first moment (its start-up cut
short where it is, its session saved, its MCP servers stopped); SIGKILL after the grace."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

from tether.store.mailbox import Member, Message, TeamStore
from tether.teams.claims import (
    STOPPED,
    TeamProcess,
    alive,
    exited,
    in_loop,
    runs_as,
    starting_by,
)
from tether.teams.claims import team_processes as team_processes
from tether.teams.down_fence import fence_starts, lift_fence
from tether.teams.member_log import log_file
from tether.teams.processes import LEAD, STOP_GRACE_S, ended


async def down(store: TeamStore, project: Path, *, wait_s: float) -> int:
    """Ask every running teammate to shut down, wait for each to stop, then stop the rest;
    again for any a start racing this one began (`down_fence`), until none is left."""
    fenced = await asyncio.to_thread(fence_starts, store)
    try:
        found = await _down_pass(store, project, wait_s, again=False)
        while fenced:
            if await asyncio.to_thread(_claimed_not_forked, store):
                await asyncio.sleep(0.05)  # its starter forks it, or gives its claim up, next
                continue
            if not await _down_pass(store, project, wait_s, again=True):
                break
            found = True
    finally:
        await asyncio.to_thread(lift_fence, store)
    if not found:
        print(f"nothing of team {store.team} was running")
    return 0


def _claimed_not_forked(store: TeamStore) -> bool:
    """Whether a start of a member here is claimed by another process and has no process
    yet: a start that claimed before the fence, about to fork."""
    now, here, me = time.time(), socket.gethostname(), os.getpid()
    for mate in store.members():
        claim = starting_by(mate, now)
        if claim is not None and claim.host == here and claim.pid != me and not alive(mate):
            return True
    return False


async def _down_pass(store: TeamStore, project: Path, wait_s: float, *, again: bool) -> bool:
    """One round of the stopping; whether anything of the team was running. `again`: only
    what runs here (a member on another machine was asked once)."""
    here = socket.gethostname()
    mates = [m for m in store.members() if m.name != LEAD]
    running = [m for m in mates if alive(m) and not (again and m.host != here)]
    for mate in mates:
        if mate not in running and exited(mate) and not again:  # stopped now
            ended(store, mate.name, mate.pid or 0, started=mate.state != "starting")
            log = log_file(project, store.team, mate.name).relative_to(project)
            print(f"{mate.name}: nothing was running (it had exited: see {log})")
    starting = [m for m in running if m.host == here and not in_loop(m)]
    asked: dict[str, str] = {}
    for mate in running:
        if mate in starting:
            continue
        sent = store.send(Message(sender=LEAD, recipient=mate.name, kind="shutdown_request"))
        asked[mate.name] = sent.id
        print(f"{mate.name}: asked to shut down")
    await asyncio.gather(
        *(_stop(store, m, wait_s, asked[m.name]) for m in running if m.name in asked),
        *(_stop_starting(store, m) for m in starting),
    )
    for mate in running:
        if mate.host != here:
            print(f"{mate.name}: runs on {mate.host}: asked only")
    # Whatever the roster says: every process of the team here (one the roster never named,
    # one still starting) is ended too.
    others = await asyncio.to_thread(team_processes, store)
    await asyncio.gather(*(_end(p) for p in others))
    return bool(running or others)


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


async def _stop_starting(store: TeamStore, mate: Member) -> None:
    """Stop a teammate still starting: SIGTERM at once, SIGKILL after the grace."""
    _signal(mate, signal.SIGTERM)
    if await _gone(mate, STOP_GRACE_S):
        said = "stopped (still starting: SIGTERM at once)"
    else:
        _signal(mate, signal.SIGKILL)
        said = "killed (still starting: SIGKILL)"
    # Its process says it stopped in its log, not in the roster: it did not start.
    await asyncio.to_thread(ended, store, mate.name, mate.pid or 0, started=False)
    print(f"{mate.name}: {said}")


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
