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
from collections.abc import Callable


async def stop_group(proc: asyncio.subprocess.Process, *, grace_s: float) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after `grace_s`, and reap.

    A cancellation that arrives meanwhile does not cut it short: stopping is what a cancelled
    caller does on its way out, and a second cancellation (an interrupt reaches a tool call
    through `gather` and again through its own `cancel()`) used to leave the group killed
    but not yet gone. The group is stopped and reaped; then the cancellation goes on."""
    stopping = asyncio.ensure_future(_stop_group(proc, grace_s))
    cancelled = False
    while not stopping.done():
        try:
            await asyncio.shield(stopping)
        except asyncio.CancelledError:
            cancelled = True
    stopping.result()
    if cancelled:
        raise asyncio.CancelledError


async def _stop_group(proc: asyncio.subprocess.Process, grace_s: float) -> None:
    signal_group(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), grace_s)
    except TimeoutError:
        pass
    finally:
        # Also when the leader went at once: children that ignore SIGTERM must not outlive it.
        signal_group(proc.pid, signal.SIGKILL)
    await proc.wait()


def signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def signal_name(number: int) -> str:
    """SIGKILL for 9: how a death by signal is reported."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


class ConfinedCommand(list[str]):
    """An argv with what its start needs besides: descriptors the child must inherit
    (`pass_fds`), `spawned()` once the child exists or failed to start (the parent's copies
    are closed), `finished(output)` after a foreground command ended, which returns a note
    for the model when the confinement explains a failure (or None)."""

    def __init__(
        self,
        argv: list[str],
        *,
        pass_fds: tuple[int, ...] = (),
        on_finished: Callable[[int, str], str | None] | None = None,
    ) -> None:
        super().__init__(argv)
        self.pass_fds = pass_fds
        self._on_finished = on_finished

    def spawned(self) -> None:
        fds, self.pass_fds = self.pass_fds, ()
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    def finished(self, returncode: int, output: str) -> str | None:
        self.spawned()
        return None if self._on_finished is None else self._on_finished(returncode, output)
