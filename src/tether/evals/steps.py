"""The subprocesses of a run: a shell step (setup, check) and a headless tether, each in its
own process group, killed as a group when its time is up. Each carries the run's mark in its
environment (`RUN_MARK_ENV`): what they started and left behind, in a session of its own too
(`setsid`), is found by it and killed when the run ends (`kill_marked`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

GRACE_S = 5.0
TAIL = 4_000
"""Characters of a step's output kept in the results (its end: where errors are)."""
RUN_MARK_ENV = "TETHER_EVAL_RUN"
PROC = Path("/proc")


def run_mark() -> str:
    """A run's mark: what its processes carry in their environment."""
    return uuid.uuid4().hex


def _marked_env(mark: str | None, extra: Mapping[str, str] | None = None) -> dict[str, str] | None:
    if mark is None and not extra:
        return None
    return {**os.environ, **(extra or {})} | ({RUN_MARK_ENV: mark} if mark else {})


def kill_marked(mark: str) -> int:
    """SIGKILL every process whose environment carries `mark` (a daemon a setup left, in a
    session of its own), again until none is left (one may fork meanwhile); how many were.
    Read from /proc: where there is none (not Linux), process groups are all there is."""
    needle = f"{RUN_MARK_ENV}={mark}".encode()
    killed = 0
    for _ in range(10):
        found = [pid for pid in _pids() if _carries(pid, needle)]
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
    return killed


def _pids() -> list[int]:
    try:
        return [int(entry.name) for entry in PROC.iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def _carries(pid: int, needle: bytes) -> bool:
    try:
        environ = (PROC / str(pid) / "environ").read_bytes()
    except OSError:  # gone, or another user's
        return False
    return needle in environ.split(b"\0")


@dataclass(frozen=True)
class Finished:
    exit_code: int | None
    """None when it was killed for running out of time."""
    output: str


def tether_argv() -> list[str]:
    """This tether, as a command (the interpreter running it, so a venv's is the one run)."""
    return [sys.executable, "-m", "tether"]


async def run_shell(command: str, cwd: Path, timeout_s: float, mark: str | None = None) -> Finished:
    """`bash -c COMMAND` in `cwd`: its exit code and the tail of its output (both streams)."""
    process = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        command,
        cwd=cwd,
        env=_marked_env(mark),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        async with asyncio.timeout(timeout_s):
            out, _ = await process.communicate()
    except TimeoutError:
        await _kill_group(process)
        return Finished(None, f"timed out after {timeout_s:g} s")
    finally:
        if process.returncode is None:
            await _kill_group(process)
    text = out.decode("utf-8", errors="replace")
    return Finished(process.returncode, text[-TAIL:])


async def run_to_file(
    argv: list[str],
    cwd: Path,
    stdout: Path,
    stderr: Path,
    timeout_s: float,
    mark: str | None = None,
    env: Mapping[str, str] | None = None,
) -> int | None:
    """`argv` in `cwd` with its output in files, `env` added to this process's environment;
    its exit code, None when killed for time."""
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=_marked_env(mark, env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        try:
            async with asyncio.timeout(timeout_s):
                return await process.wait()
        except TimeoutError:
            await _stop_group(process)
            return None
        finally:
            if process.returncode is None:
                await _kill_group(process)


async def _stop_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM first, so that tether ends its turn and saves its session; SIGKILL after
    `GRACE_S`."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        async with asyncio.timeout(GRACE_S):
            await process.wait()
    except TimeoutError:
        await _kill_group(process)


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    await process.wait()
