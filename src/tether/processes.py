"""Stopping a subprocess with everything it started. Tools and hooks run commands in process
groups of their own (`start_new_session=True`); this is how such a group ends.

It sits at the bottom layer beside `protocol`, so that every service can use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal


async def stop_group(proc: asyncio.subprocess.Process, *, grace_s: float) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after `grace_s`, and reap."""
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
