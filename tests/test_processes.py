"""Stopping a process group: whatever cancels the caller meanwhile, the group is killed and
reaped before the cancellation goes on (an interrupt reaches a tool call twice: through
`gather` and through its own `cancel()`)."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from tether.processes import stop_group


async def test_a_cancellation_during_the_grace_still_stops_and_reaps_the_group() -> None:
    bash = shutil.which("bash") or "/bin/bash"
    # Ignores SIGTERM: only the SIGKILL after the grace ends it.
    proc = await asyncio.create_subprocess_exec(
        bash,
        "-c",
        "trap '' TERM; echo ready; while :; do sleep 1; done",
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert await proc.stdout.readline() == b"ready\n"  # SIGTERM is ignored from here on
    stopping = asyncio.create_task(stop_group(proc, grace_s=2))
    await asyncio.sleep(0)  # it has sent SIGTERM and waits out the grace
    stopping.cancel()
    await asyncio.sleep(0)
    stopping.cancel()  # and again, as an interrupt does
    with pytest.raises(asyncio.CancelledError):
        await stopping
    assert proc.returncode is not None  # killed and reaped, not left to die later
