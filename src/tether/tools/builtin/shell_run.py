"""Running one command under bash, as the Bash tool does: in its own process group, with the
environment every command gets (no pagers or prompts, git's safety settings), output kept in
bounded memory, the group stopped on timeout or cancellation, and the directory the shell
ended in reported back through a file only tether reads."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tether.processes import ConfinedCommand, start_environment, stop_group, stop_once_started
from tether.protocol import ToolError
from tether.tools.builtin.shell_output import OutputCapture
from tether.tools.context import CommandWrapper
from tether.tools.os_errors import os_errors
from tether.tools.run_record import RunRecord

KILL_GRACE_S = 2.0
"""How long a process group has between SIGTERM and SIGKILL."""
OUTPUT_GRACE_S = 0.5
"""How long to keep reading after the shell exits, for output still in flight from children."""

# Programs that would wait for a pager or a terminal prompt must not: nobody can answer them.
_ENV_OVERRIDES = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "TERM": "dumb",
    "GIT_TERMINAL_PROMPT": "0",
    # A relative `cd` goes where the permission engine judged it goes, not along a CDPATH
    # (and PWD, set per command, is the directory bash starts in, not an inherited alias).
    "CDPATH": "",
}


GIT_SAFETY = (("safe.bareRepository", "explicit"),)
"""git settings every command gets. A directory holding `HEAD`, `config`, `objects` and
`refs` is a bare repository to git, and its config (`core.fsmonitor`, hooks) runs programs;
only `.git` directories are protected from writes, so git must not find any other repository
by itself (`cd evil && git status`): `--git-dir` names one explicitly, and the permission
engine judges that."""


def command_environment(environ: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """The environment a command runs with: `environ` with the overrides above, and
    `GIT_SAFETY` added after any `GIT_CONFIG_COUNT` settings already there (git takes the
    last value given, so these win)."""
    # OLDPWD too: `cd -` at a command's start goes back to where it started (the engine
    # judges it so), not to a directory inherited from whoever started tether.
    env = {**environ, **_ENV_OVERRIDES, "PWD": str(cwd), "OLDPWD": str(cwd)}
    count = env.get("GIT_CONFIG_COUNT", "")
    n = int(count) if count.isdigit() else 0
    for key, value in GIT_SAFETY:
        env[f"GIT_CONFIG_KEY_{n}"] = key
        env[f"GIT_CONFIG_VALUE_{n}"] = value
        n += 1
    env["GIT_CONFIG_COUNT"] = str(n)
    return env


def _marker(record: RunRecord | None) -> dict[str, str]:
    return record.environment() if record is not None else {}


def start_env(
    argv: list[str], environ: Mapping[str, str], cwd: Path, record: RunRecord | None
) -> dict[str, str]:
    """What the command's process is started with: the command's environment with the
    run's marker, which tells the cleanup after a killed run which processes were its, as a
    confinement lets it through (its own program gets no more than the command). The sandbox
    withholds the marker with tether's other variables unless `sandbox.env` lists it: bwrap's
    pid namespace and `--die-with-parent` end what runs inside, and the process group it
    leads is written down."""
    return start_environment(argv, command_environment(environ, cwd) | _marker(record))


@dataclass(frozen=True)
class ShellRun:
    returncode: int
    """Negative when the shell itself died of a signal."""
    output: str
    timed_out: bool
    output_held_open: bool
    final_cwd: str | None
    """The shell's `$PWD` when it exited, or None when it did not say (killed, `exec`...)."""
    confinement_note: str | None = None
    """What the sandbox says about a failure (the network is off...), or None."""


async def run_shell(
    command: str,
    cwd: Path,
    timeout_s: float,
    scratch_dir: Path,
    *,
    wrapper: CommandWrapper | None = None,
    record: RunRecord | None = None,
    env: Mapping[str, str] | None = None,
) -> ShellRun:
    """Run `command` under bash in its own process group; stop the group on timeout or
    cancellation (the cancellation is then re-raised). `wrapper` turns the bash argv into a
    confined one; what it starts must die with it (bwrap's --die-with-parent does). `record`
    writes the group down (and marks its environment) for the cleanup after a killed run.
    `env` is added to tether's own environment (the settings' `env` table)."""
    with os_errors(f"keep the command's output in {scratch_dir}"):
        cwd_file, cwd_fd = _new_cwd_file(scratch_dir)
        try:
            capture = OutputCapture(scratch_dir)
        except BaseException:
            os.close(cwd_fd)
            raise
    argv: list[str] = []
    returncode = -1
    try:
        with os_errors(f"keep the command's output in {scratch_dir}"):
            argv = bash_argv(_script(command, cwd_file), cwd, wrapper)
        returncode, timed_out, held_open = await _run_in_group(
            argv, cwd, timeout_s, capture, record, env or {}
        )
    finally:
        capture.close()
        final_cwd = _take_cwd_file(cwd_file, cwd_fd)
        # The confinement cleans up after its command (the sandbox's placeholders).
        confined = isinstance(argv, ConfinedCommand)
        note = argv.finished(returncode, capture.text()) if confined else None
    return ShellRun(returncode, capture.text(), timed_out, held_open, final_cwd, note)


def bash_argv(script: str, cwd: Path, wrapper: CommandWrapper | None) -> list[str]:
    """The argv that runs `script` under bash, confined by `wrapper` when there is one."""
    argv = [shutil.which("bash") or "/bin/bash", "-c", script]
    return argv if wrapper is None else wrapper(argv, cwd)


CWD_REPORT_LIMIT = 64 * 1024
"""A longer report of the shell's last directory is no report."""


def _new_cwd_file(scratch_dir: Path) -> tuple[Path, int]:
    """The file the shell's EXIT trap writes its last directory to, and tether's descriptor of
    it. The command can write the scratch directory, so it can put a symlink, a fifo or a
    directory where the file was; tether therefore reads only through the descriptor it
    created the file with (the trap's `>|` truncates and writes that same file), never by
    name: what the command put in its place is never opened."""
    scratch_dir.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix="cwd-", dir=scratch_dir)
    return Path(name), fd


def _take_cwd_file(cwd_file: Path, fd: int) -> str | None:
    """What the trap wrote, or None: nothing, too much, or what no directory can be named (a
    NUL). Either way the file goes, or whatever the command put there but a directory."""
    try:
        data = os.pread(fd, CWD_REPORT_LIMIT + 1, 0)
    except OSError:
        return None
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            if not stat.S_ISDIR(os.lstat(cwd_file).st_mode):
                os.unlink(cwd_file)  # never follows a symlink
    if not data or len(data) > CWD_REPORT_LIMIT or b"\0" in data:
        return None
    return data.decode("utf-8", errors="surrogateescape")


def _script(command: str, cwd_file: Path) -> str:
    # The EXIT trap reports where the shell ended, even after `exit`; on the same line as the
    # command so that bash's error messages still say "line 1".
    report = f'builtin printf %s "$PWD" >| {shlex.quote(str(cwd_file))} 2>/dev/null'
    return f"trap {shlex.quote(report)} EXIT; {command}"


async def _run_in_group(
    argv: list[str],
    cwd: Path,
    timeout_s: float,
    capture: OutputCapture,
    record: RunRecord | None,
    env: Mapping[str, str],
) -> tuple[int, bool, bool]:
    # A pipe of our own rather than asyncio's: asyncio would only report the exit once every
    # holder of the pipe (background children too) has closed it.
    read_fd, write_fd = os.pipe()
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=asyncio.subprocess.STDOUT,
            cwd=cwd,
            env=start_env(argv, {**os.environ, **env}, cwd, record),
            start_new_session=True,
            pass_fds=argv.pass_fds if isinstance(argv, ConfinedCommand) else (),
        )
    )
    try:
        # Shielded: a cancellation here can arrive after the fork, and the process it started
        # must still be found and stopped.
        proc = await asyncio.shield(spawn)
        if record is not None:
            record.process_group(proc.pid)
    except asyncio.CancelledError:
        pipe.close()
        await stop_once_started(spawn, grace_s=KILL_GRACE_S)
        raise
    except OSError as e:
        pipe.close()
        raise ToolError(f"Could not start {argv[0]}: {e.strerror or e}") from None
    finally:
        os.close(write_fd)
        if isinstance(argv, ConfinedCommand):
            argv.spawned()

    loop = asyncio.get_running_loop()
    closed: asyncio.Future[None] = loop.create_future()
    try:
        transport, _ = await loop.connect_read_pipe(lambda: _PipeReader(capture, closed), pipe)
    except BaseException:
        pipe.close()
        await stop_group(proc, grace_s=KILL_GRACE_S)
        raise
    timed_out = False
    try:
        try:
            async with asyncio.timeout(timeout_s):
                await proc.wait()
        except TimeoutError:
            timed_out = True
            await stop_group(proc, grace_s=KILL_GRACE_S)
        done, _ = await asyncio.wait({closed}, timeout=OUTPUT_GRACE_S)
    except BaseException:
        # Cancelled (the user interrupted) or failing: leave nothing of the command running.
        await stop_group(proc, grace_s=KILL_GRACE_S)
        raise
    finally:
        transport.close()
    assert proc.returncode is not None
    return proc.returncode, timed_out, not done


class _PipeReader(asyncio.Protocol):
    def __init__(self, capture: OutputCapture, closed: asyncio.Future[None]) -> None:
        self._capture = capture
        self._closed = closed

    def data_received(self, data: bytes) -> None:
        self._capture.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closed.done():
            self._closed.set_result(None)
