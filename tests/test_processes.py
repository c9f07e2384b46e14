"""Stopping a process group: a second cancellation, arriving while a cancelled call stops its
command (a parallel call ended first and the loop stops the others; the user interrupts
twice), does not cut the stop short: the group is killed and its leader reaped first."""

from __future__ import annotations

import asyncio
import shutil
import signal
from pathlib import Path

import pytest

from tether.processes import stop_group, stop_once_started

BASH = shutil.which("bash") or "/bin/bash"


def _stubborn(told: Path) -> list[str]:
    """A shell that outlives SIGTERM (so the stop waits out its grace) and says it came; once
    its trap is set it writes `ready` beside `told` (a SIGTERM before that would kill it)."""
    ready = told.with_name("ready")
    script = f"trap 'echo term >> {told}' TERM; : > {ready}; while :; do sleep 60 & wait; done"
    return [BASH, "-c", script]


async def _until(path: Path) -> None:
    for _ in range(2000):  # polls a file another process writes; bounded so nothing hangs
        if path.exists():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} was never written")


async def test_a_cancellation_during_the_grace_kills_and_reaps_at_once(tmp_path: Path) -> None:
    told = tmp_path / "told"
    proc = await asyncio.create_subprocess_exec(*_stubborn(told), start_new_session=True)
    await _until(told.with_name("ready"))
    stopping = asyncio.ensure_future(stop_group(proc, grace_s=600))
    await _until(told)  # SIGTERM came and was shrugged off: the stop waits its grace
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    # Killed and reaped before the cancellation went on, without waiting out the grace.
    assert proc.returncode == -signal.SIGKILL


async def test_a_cancellation_while_reaping_still_reaps(tmp_path: Path) -> None:
    """Cancelled twice: once during the grace, once more while it reaps."""
    told = tmp_path / "told"
    proc = await asyncio.create_subprocess_exec(*_stubborn(told), start_new_session=True)
    await _until(told.with_name("ready"))
    stopping = asyncio.ensure_future(stop_group(proc, grace_s=600))
    await _until(told)
    stopping.cancel()
    await asyncio.sleep(0)  # into the reaping
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    assert proc.returncode is not None


async def test_a_process_cancelled_while_it_starts_is_stopped_even_if_cancelled_again(
    tmp_path: Path,
) -> None:
    told = tmp_path / "told"
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(*_stubborn(told), start_new_session=True)
    )
    stopping = asyncio.ensure_future(stop_once_started(spawn, grace_s=600))
    await asyncio.sleep(0)  # waiting for the start
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    proc = spawn.result()
    assert proc.returncode is not None
