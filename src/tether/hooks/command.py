"""Running one command hook: bash in its own process group, the input on stdin, a timeout, and the
whole group stopped on timeout or cancellation. A hook configured `async`, or whose first stdout
line is `{"async": true}`, goes on in the background (`Background`) and is not waited for."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from tether.processes import (
    group_started,
    run_marked,
    signal_name,
    stop_group,
    stop_once_started,
)

KILL_GRACE_S = 1.0
"""How long a hook's process group has between SIGTERM and SIGKILL."""
OUTPUT_GRACE_S = 0.5
"""How long to keep reading after the hook exits, for output still in flight from its children;
a child that keeps the pipe open longer (a daemon it started) is left alone, unread."""
MAX_OUTPUT_BYTES = 1_000_000
"""Output kept per stream; the rest is read and dropped so the hook never blocks on a full pipe."""
ASYNC_TIMEOUT_S = 15.0
"""How long a hook that answered `{"async": true}` without `asyncTimeout` may go on in the
background (Claude Code's default)."""


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
    backgrounded: bool = False
    """It went on in the background (`async`) and was not waited for: no answer to read."""


class Background:
    """The hooks of one session still running in the background, each with its own timeout;
    `aclose` stops them (their process groups)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[HookRun]] = set()

    def keep(self, task: asyncio.Task[HookRun]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def running(self) -> int:
        """How many are still running."""
        return len(self._tasks)

    async def aclose(self) -> None:
        tasks = tuple(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def run_command(
    command: str,
    stdin: bytes,
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_s: float,
    background: Background | None = None,
    detach: bool = False,
    landed: Callable[[HookRun], None] | None = None,
) -> HookRun:
    """Run `command` under bash (sh when there is no bash), feed it `stdin`, and collect its
    output. A cancellation stops the process group and is re-raised.

    With `background`, as Claude Code does: `detach` (the hook is configured `async`) returns
    as soon as the input is written, and a hook whose stdout begins with a JSON object holding
    `"async": true` is let go once that object is read; either goes on in `background`, until
    its timeout (`asyncTimeout` in milliseconds, 15 s without one); `landed` is given how it
    ended (its whole output) once it does, unless the session stopped it first. Without
    `background`, every hook is waited for."""
    loop = asyncio.get_running_loop()
    # Pipes of our own rather than asyncio's: asyncio reports an exit only once every holder of
    # its pipes has closed them, and a daemon a hook starts may hold them for good.
    stdin_read, stdin_write = os.pipe()
    stdin_file = os.fdopen(stdin_write, "wb", buffering=0)
    out, err = _Capture(loop), _Capture(loop)
    feeder: asyncio.WriteTransport | None = None
    handed_over = False

    def release() -> None:
        if feeder is None:
            stdin_file.close()
        # Input still buffered (the hook never read it) is dropped; a transport already closed
        # must not be closed twice.
        elif not feeder.is_closing() or feeder.get_write_buffer_size():
            feeder.abort()
        out.close()
        err.close()

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
        deadline = _Deadline(timeout_s)
        if background is None:
            return await _collect(proc, deadline, out, err)
        collect = asyncio.ensure_future(_collect(proc, deadline, out, err))
        if not detach:
            try:
                await asyncio.wait({collect, out.marker}, return_when=asyncio.FIRST_COMPLETED)
            except BaseException:
                collect.cancel()
                await asyncio.gather(collect, return_exceptions=True)
                raise
            marker = None if collect.done() else out.marker.result()
            if marker is None:
                return await collect
            deadline.extend(_async_timeout_s(marker))
        background.keep(collect)
        collect.add_done_callback(lambda _: release())
        if landed is not None:
            collect.add_done_callback(lambda done: _tell_landed(done, landed))
        handed_over = True
        return HookRun(0, "", "", backgrounded=True)
    finally:
        if not handed_over:
            release()


def _tell_landed(done: asyncio.Task[HookRun], landed: Callable[[HookRun], None]) -> None:
    if not done.cancelled() and done.exception() is None:
        landed(done.result())


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
            env=run_marked(env),  # found by the next start if tether is killed meanwhile
            start_new_session=True,
        )
    )
    try:
        # Shielded: a cancellation can arrive after the fork, and that process must be stopped.
        process = await asyncio.shield(spawn)
        group_started(process.pid)  # its group, which a child in a cleared environment keeps
        return process
    except asyncio.CancelledError:
        await stop_once_started(spawn, grace_s=KILL_GRACE_S)
        raise
    except OSError as e:
        return HookRun(None, "", "", f"could not start: {e.strerror or e}")


def _async_timeout_s(marker: dict[str, object]) -> float:
    """The background timeout an `{"async": true}` answer asks for (`asyncTimeout`, in ms)."""
    ms = marker.get("asyncTimeout")
    if isinstance(ms, int | float) and not isinstance(ms, bool) and ms > 0:
        return ms / 1000
    return ASYNC_TIMEOUT_S


def _json_object(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None


class _Deadline:
    """A hook's timeout, which a hook that goes on in the background replaces."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.scope: asyncio.Timeout | None = None

    def extend(self, seconds: float) -> None:
        """From now, `seconds` more (the background timeout)."""
        self.seconds = seconds
        if self.scope is not None:
            self.scope.reschedule(asyncio.get_running_loop().time() + seconds)


async def _collect(
    proc: asyncio.subprocess.Process, deadline: _Deadline, out: _Capture, err: _Capture
) -> HookRun:
    timed_out = False
    try:
        try:
            async with asyncio.timeout(deadline.seconds) as scope:
                deadline.scope = scope
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
        why = f"timed out after {deadline.seconds:g} s"
        return HookRun(None, stdout, stderr, why, timed_out=True)
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
        self.marker: asyncio.Future[dict[str, object] | None] = loop.create_future()
        """Set once the output's beginning is read: the JSON object it starts with when that
        holds `"async": true` (the hook goes on in the background), else None."""

    async def attach(self) -> None:
        self._transport, _ = await self._loop.connect_read_pipe(lambda: self, self._file)

    def data_received(self, data: bytes) -> None:
        room = MAX_OUTPUT_BYTES - len(self._data)
        if room > 0:
            self._data += data[:room]
        if not self.marker.done() and (b"\n" in data or b"}" in data):
            self._read_marker(ended_line=b"\n" in data)

    def _read_marker(self, *, ended_line: bool) -> None:
        # As Claude Code reads it: once a chunk ends a line or closes a brace, everything
        # printed so far, trimmed, is the answer's beginning; a line without a brace is not one.
        head = self._data.decode("utf-8", errors="replace").strip()
        if "}" not in head:
            if ended_line:
                self.marker.set_result(None)
            return
        answer = _json_object(head)
        if answer is None and "\n" in head:  # more than the answer arrived at once
            answer = _json_object(head.split("\n", 1)[0])
        is_async = isinstance(answer, dict) and answer.get("async") is True  # pyright: ignore[reportUnknownMemberType]
        self.marker.set_result(cast(dict[str, object], answer) if is_async else None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)
        if not self.marker.done():
            self.marker.set_result(None)

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
