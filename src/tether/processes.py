"""Stopping a subprocess with everything it started, and `ConfinedCommand`, the argv a sandbox
hands the runner with what its start needs. Tools and hooks run commands in process
groups of their own (`start_new_session=True`); this is how such a group ends.

It sits at the bottom layer beside `protocol`, so that every service can use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NoReturn


async def stop_group(proc: asyncio.subprocess.Process, *, grace_s: float) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after `grace_s`, and reap.

    A cancellation meanwhile ends the grace (SIGKILL at once) but not the stop: stopping is
    what a cancelled call does on its way out, and a second cancellation then (a parallel
    call ended first and the loop stops the others, or the user interrupts twice) must not
    leave the group running or its leader unreaped. It is raised once the leader is reaped."""
    signal_group(proc.pid, signal.SIGTERM)
    cancelled = False
    try:
        async with asyncio.timeout(grace_s):
            await proc.wait()
    except TimeoutError:
        pass
    except asyncio.CancelledError:
        cancelled = True
    finally:
        # Also when the leader went at once: children that ignore SIGTERM must not outlive it.
        signal_group(proc.pid, signal.SIGKILL)
    if await _wait_out(asyncio.ensure_future(proc.wait())) or cancelled:
        raise asyncio.CancelledError


async def stop_once_started(
    spawn: asyncio.Future[asyncio.subprocess.Process], *, grace_s: float
) -> None:
    """Stop the group of the process `spawn` is starting, once started (a call cancelled
    while it started: the fork may have happened); nothing if it could not start. Not cut
    short by a cancellation either (`stop_group`)."""
    cancelled = await _wait_out(spawn)
    if not spawn.cancelled() and spawn.exception() is None:
        await stop_group(spawn.result(), grace_s=0 if cancelled else grace_s)
    if cancelled:
        raise asyncio.CancelledError


async def _wait_out(future: asyncio.Future[Any]) -> bool:
    """Wait until `future` is done, whatever cancellation arrives meanwhile; whether one did
    (the caller raises it when its own work is done)."""
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True
        except Exception:  # the future's own outcome: the caller reads it
            pass
    return cancelled


RUN_MARKER = "TETHER_RUN"
"""The variable naming the run (`tether.tools.run_record`) a process was started by. The run
record sets it in this process's environment as it starts, so that every child inherits it,
and a child started with an environment of its own gets it with `run_marked`: the next tether
start finds by it what a killed tether left running (hooks, MCP servers, commands)."""


def run_marked(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with this process's run marker, for a child started with an environment built
    apart from this process's (a hook's, a stdio MCP server's scrubbed one)."""
    marker = os.environ.get(RUN_MARKER)
    return {**env, RUN_MARKER: marker} if marker else dict(env)


_group_recorder: list[Callable[[int], None]] = []
"""Where a process group started for the run is written down (`record_groups_with`)."""


def record_groups_with(
    recorder: Callable[[int], None] | None, *, unless: Callable[[int], None] | None = None
) -> None:
    """From now on, `group_started` tells `recorder` (the live run record's). None stops it,
    unless another recorder than `unless` was set meanwhile (a later run's)."""
    if recorder is None and _group_recorder and _group_recorder[0] != unless:
        return
    _group_recorder[:] = [recorder] if recorder is not None else []


def group_started(pgid: int) -> None:
    """A child was started as the leader of process group `pgid` (a hook): written down in
    the run's record, so that the next start stops the group if tether is killed, even the
    members that cleared their environment (and with it the run's marker)."""
    for recorder in _group_recorder:
        recorder(pgid)


def unmarked(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without a run marker: for a process that outlives the run that starts it (a
    teammate, which keeps a run record of its own)."""
    return {name: value for name, value in env.items() if name != RUN_MARKER}


TEAM_RUN_ENV = "TETHER_TEAM_RUN"
"""In a teammate process's environment: `["<store url>", "<team>", "<member>"]` (JSON)
(`tether.teams.claims`). Here, at the bottom, so that a service that starts long-lived
children (an MCP server) can tell that it runs as a teammate."""

_PARENT_BOUND = str(Path(__file__).with_name("parent_bound.py"))


def bound_to_this_process(command: str, args: list[str]) -> tuple[str, list[str]]:
    """`command args` started so that it and every process it starts are killed (SIGKILL)
    when this process dies, however it dies, SIGKILL included: a teammate's MCP server leads
    a process group of its own (its SDK starts it so), which no signal to the teammate's group
    reaches, and a teammate killed runs nothing to close it. The kernel's parent-death signal
    kills one process only, so a Python shim (`tether.parent_bound`) stays as the command's
    parent and group leader, and kills the command's descendants and group when this process
    dies (a server started through `npx` or `uv run` does its work in a child). Linux only;
    elsewhere unchanged.

    The signal comes when the thread that started the child ends: call it from the thread of
    the event loop that owns the child for its life."""
    if not sys.platform.startswith("linux"):
        return command, args
    shim = [sys.executable, "-I", "-S", _PARENT_BOUND, str(os.getpid())]
    return shim[0], [*shim[1:], command, *args]


def signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def signal_name(number: int) -> str:
    """SIGKILL for 9: how a death by signal is reported."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def exit_said(code: int) -> str:
    """How a child's end is said, from its status as `Popen` gives it: "ended by SIGTERM"
    when a signal killed it (-15); "exit 2", and "exit 143" too, when it exited by itself (a
    program's own code, whatever its number: only the kernel knows a signal killed it, and
    tether's own processes stopped by one end by it, `end_by_signal`)."""
    if code >= 0:
        return f"exit {code}"
    return f"ended by {signal_name(-code)}"


def end_by_signal(signum: int) -> NoReturn:
    """End this process by `signum`, its work done (a stop it handled): its parent sees a
    death by that signal (`Popen`: -N; a shell: 128+N), not an exit code it chose, which a
    program may exit with by itself. Exit 128+N should the signal not end it (blocked or
    ignored where this cannot undo it)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)


class ConfinedCommand(list[str]):
    """An argv with what its start needs besides: descriptors the child must inherit
    (`pass_fds`), the environment it is started with (`environment(env)`: what the
    confinement lets through of the environment the command would get; the confining
    program itself is started with it, so that no process of the confinement holds more),
    `spawned()` once the child exists or failed to start (the parent's copies are closed),
    `checkpoint()` when a background command's output is read while it runs,
    `finished(output)` after a foreground command ended, which returns a note for the model
    when the confinement explains a failure (or None)."""

    def __init__(
        self,
        argv: list[str],
        *,
        pass_fds: tuple[int, ...] = (),
        on_finished: Callable[[int, str], str | None] | None = None,
        environment: Callable[[Mapping[str, str]], dict[str, str]] | None = None,
        on_checkpoint: Callable[[], str | None] | None = None,
    ) -> None:
        super().__init__(argv)
        self.pass_fds = pass_fds
        self._on_finished = on_finished
        self._environment = environment
        self._on_checkpoint = on_checkpoint

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """The environment to start the argv with, from the one the command would get."""
        return dict(env) if self._environment is None else self._environment(env)

    def spawned(self) -> None:
        fds, self.pass_fds = self.pass_fds, ()
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    def finished(self, returncode: int, output: str) -> str | None:
        self.spawned()
        return None if self._on_finished is None else self._on_finished(returncode, output)

    def checkpoint(self) -> str | None:
        """While a background command runs, when its output is read: what the confinement
        does then (the sandbox disables the git programs made so far), and its note."""
        return None if self._on_checkpoint is None else self._on_checkpoint()


def start_environment(argv: list[str], env: Mapping[str, str]) -> dict[str, str]:
    """The environment to start `argv` with when its command would get `env`: a confined
    command's confinement says (`ConfinedCommand.environment`)."""
    return argv.environment(env) if isinstance(argv, ConfinedCommand) else dict(env)
