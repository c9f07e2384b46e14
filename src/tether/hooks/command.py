"""Running one command hook: bash in its own process group, the input on stdin, a timeout, and the
whole group stopped on timeout or cancellation."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tether.processes import signal_name, stop_group, stop_once_started

KILL_GRACE_S = 1.0
"""How long a hook's process group has between SIGTERM and SIGKILL."""
OUTPUT_GRACE_S = 0.5
"""How long to keep reading after the hook exits, for output still in flight from its children;
a child that keeps the pipe open longer (a daemon it started) is left alone, unread."""
MAX_OUTPUT_BYTES = 1_000_000
"""Output kept per stream; the rest is read and dropped so the hook never blocks on a full pipe."""


@dataclass(frozen=True)
class HookRun:
    """How one hook process ended."""

    exit_code: int | None
    """None when it did not exit by itself (timed out, could not start); negative for a signal."""
    stdout: str
    stderr: str
    failure: str | None = None
    """Why it did not run to a normal exit, e.g. "timed out after 5 s"; None when it did."""
    timed_out: bool = False
    """It did not finish within its timeout."""


async def run_command(
    command: str, stdin: bytes, *, cwd: Path, env: Mapping[str, str], timeout_s: float
) -> HookRun:
    """Run `command` under bash (sh when there is no bash), feed it `stdin`, and collect its
    output. A cancellation stops the process group and is re-raised."""
    loop = asyncio.get_running_loop()
    # Pipes of our own rather than asyncio's: asyncio reports an exit only once every holder of
    # its pipes has closed them, and a daemon a hook starts may hold them for good.
    stdin_read, stdin_write = os.pipe()
    stdin_file = os.fdopen(stdin_write, "wb", buffering=0)
    out, err = _Capture(loop), _Capture(loop)
    feeder: asyncio.WriteTransport | None = None
    try:
        try:
            proc = await _spawn(command, cwd, env, (stdin_read, out.write_fd, err.write_fd))
        finally:
            os.close(stdin_read)
            out.close_write_end()
            err.close_write_end()
        if isinstance(proc, HookRun):
            return proc
        try:
            feeder, _ = await loop.connect_write_pipe(asyncio.BaseProtocol, stdin_file)
            await out.attach()
            await err.attach()
        except BaseException:
            await stop_group(proc, grace_s=KILL_GRACE_S)
            raise
        # Buffered by the transport: a hook may exit without reading its input, as is its right.
        feeder.write(stdin)
        feeder.close()
        return await _collect(proc, timeout_s, out, err)
    finally:
        if feeder is None:
            stdin_file.close()
        # Input still buffered (the hook never read it) is dropped; a transport already closed
        # must not be closed twice.
        if feeder is not None and (not feeder.is_closing() or feeder.get_write_buffer_size()):
            feeder.abort()
        out.close()
        err.close()


async def _spawn(
    command: str, cwd: Path, env: Mapping[str, str], fds: tuple[int, int, int]
) -> asyncio.subprocess.Process | HookRun:
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            shutil.which("bash") or "/bin/sh",
            "-c",
            command,
            stdin=fds[0],
            stdout=fds[1],
            stderr=fds[2],
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
        )
    )
    try:
        # Shielded: a cancellation can arrive after the fork, and that process must be stopped.
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        await stop_once_started(spawn, grace_s=KILL_GRACE_S)
        raise
    except OSError as e:
        return HookRun(None, "", "", f"could not start: {e.strerror or e}")


async def _collect(
    proc: asyncio.subprocess.Process, timeout_s: float, out: _Capture, err: _Capture
) -> HookRun:
    timed_out = False
    try:
        try:
            async with asyncio.timeout(timeout_s):
                await proc.wait()
        except TimeoutError:
            timed_out = True
            await stop_group(proc, grace_s=KILL_GRACE_S)
        await asyncio.wait({out.done, err.done}, timeout=OUTPUT_GRACE_S)
    except BaseException:
        await stop_group(proc, grace_s=KILL_GRACE_S)
        raise
    stdout, stderr = out.text(), err.text()
    if timed_out:
        return HookRun(None, stdout, stderr, f"timed out after {timeout_s:g} s", timed_out=True)
    code = proc.returncode
    assert code is not None
    if code < 0:
        return HookRun(code, stdout, stderr, f"was killed by signal {signal_name(-code)}")
    return HookRun(code, stdout, stderr)


class _Capture(asyncio.Protocol):
    """One output pipe of a hook, read into bounded memory."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        read_fd, self.write_fd = os.pipe()
        self._loop = loop
        self._file = os.fdopen(read_fd, "rb", buffering=0)
        self._transport: asyncio.BaseTransport | None = None
        self._data = bytearray()
        self.done: asyncio.Future[None] = loop.create_future()
        """Set when the pipe is closed by every process that held it."""

    async def attach(self) -> None:
        self._transport, _ = await self._loop.connect_read_pipe(lambda: self, self._file)

    def data_received(self, data: bytes) -> None:
        room = MAX_OUTPUT_BYTES - len(self._data)
        if room > 0:
            self._data += data[:room]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)

    def text(self) -> str:
        return self._data.decode("utf-8", errors="replace")

    def close_write_end(self) -> None:
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def close(self) -> None:
        self.close_write_end()
        if self._transport is not None:
            self._transport.close()
        else:
            self._file.close()
