"""Finding and running the `rg` binary that Glob and Grep are built on."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from tether.protocol import ToolError

_READ_CHUNK = 1 << 16


def rg_binary() -> Path:
    """The `rg` installed by the `ripgrep` wheel beside this Python, else the one on PATH."""
    beside_python = Path(sys.executable).parent / "rg"
    if beside_python.is_file() and os.access(beside_python, os.X_OK):
        return beside_python
    found = shutil.which("rg")
    if found is not None:
        return Path(found)
    raise ToolError(
        "ripgrep (rg) is not installed; install it with `pip install ripgrep==14.1.0` "
        "in tether's environment."
    )


@dataclass(frozen=True)
class RgRun:
    returncode: int
    stdout: bytes
    stderr: str
    cut: bool
    """True when output passed `max_output` and rg was stopped early."""


async def run_rg(args: list[str], cwd: Path, max_output: int) -> RgRun:
    """Run rg with `args` in `cwd`, keeping at most `max_output` bytes of its standard output."""
    try:
        # stdin must not be a pipe: rg would search it instead of the directory.
        proc = await asyncio.create_subprocess_exec(
            str(rg_binary()),
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as e:
        raise ToolError(f"Could not run ripgrep in {cwd}: {e.strerror or e}") from None
    assert proc.stdout is not None
    assert proc.stderr is not None
    stderr_task = asyncio.create_task(proc.stderr.read())
    chunks: list[bytes] = []
    size = 0
    cut = False
    try:
        while chunk := await proc.stdout.read(_READ_CHUNK):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_output:
                cut = True
                proc.kill()
                break
        stderr, returncode = await _finish(proc, stderr_task)
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            # Shielded so that a cancelled search still reaps rg instead of leaving it behind.
            await asyncio.shield(_finish(proc, stderr_task))
    data = b"".join(chunks)
    if cut:
        data = data[: data.rfind(b"\n", 0, max_output) + 1]
    return RgRun(returncode, data, stderr.decode("utf-8", errors="replace").strip(), cut)


async def _finish(
    proc: asyncio.subprocess.Process, stderr_task: asyncio.Task[bytes]
) -> tuple[bytes, int]:
    # The process only counts as done once its pipes reach end of file, so drain what is left.
    assert proc.stdout is not None
    while await proc.stdout.read(_READ_CHUNK):
        pass
    return await stderr_task, await proc.wait()


def newest_first(root: Path, names: list[bytes]) -> list[bytes]:
    """`names` (relative to `root`, as rg prints them) by modification time, newest first;
    ties in name order so that results are stable. One stat per name: run it in a thread."""
    # Looking names up relative to an open directory is a third faster than joining paths.
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return sorted(names)  # the directory went away: no times to order by
    try:
        keyed: list[tuple[int, bytes]] = []
        for name in names:
            try:
                mtime = os.stat(name, dir_fd=root_fd).st_mtime_ns
            except OSError:
                mtime = 0  # gone since rg listed it: last
            keyed.append((-mtime, name))
    finally:
        os.close(root_fd)
    keyed.sort()
    return [name for _, name in keyed]
