"""Stopping a process group: a second cancellation, arriving while a cancelled call stops its
command (a parallel call ended first and the loop stops the others; the user interrupts
twice), does not cut the stop short: the group is killed and its leader reaped first."""

from __future__ import annotations

import asyncio
import shutil
import signal

import pytest

from tether.processes import stop_group, stop_once_started

BASH = shutil.which("bash") or "/bin/bash"


async def _stubborn() -> asyncio.subprocess.Process:
    """A shell that outlives SIGTERM (so a stop waits out its grace) and says so on stdout;
    started and past its `trap` when this returns (a SIGTERM before it would end the shell)."""
    proc = await asyncio.create_subprocess_exec(
        *(BASH, "-c", "trap 'echo term' TERM; echo ready; while :; do sleep 60 & wait; done"),
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert await proc.stdout.readline() == b"ready\n"
    return proc


async def _shrugged_off(proc: asyncio.subprocess.Process) -> None:
    """Until the shell says SIGTERM came (and it lives on)."""
    assert proc.stdout is not None
    assert await proc.stdout.readline() == b"term\n"


async def test_a_cancellation_during_the_grace_kills_and_reaps_at_once() -> None:
    proc = await _stubborn()
    stopping = asyncio.ensure_future(stop_group(proc, grace_s=600))
    await _shrugged_off(proc)  # SIGTERM came and was shrugged off: the stop waits its grace
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    # Killed and reaped before the cancellation went on, without waiting out the grace.
    assert proc.returncode == -signal.SIGKILL


async def test_a_cancellation_while_reaping_still_reaps() -> None:
    """Cancelled twice: once during the grace, once more while it reaps."""
    proc = await _stubborn()
    stopping = asyncio.ensure_future(stop_group(proc, grace_s=600))
    await _shrugged_off(proc)
    stopping.cancel()
    await asyncio.sleep(0)  # into the reaping
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    assert proc.returncode is not None


async def test_a_process_cancelled_while_it_starts_is_stopped_even_if_cancelled_again() -> None:
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *(BASH, "-c", "while :; do sleep 60 & wait; done"), start_new_session=True
        )
    )
    stopping = asyncio.ensure_future(stop_once_started(spawn, grace_s=600))
    await asyncio.sleep(0)  # waiting for the start
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    proc = spawn.result()
    assert proc.returncode is not None
