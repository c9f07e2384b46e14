"""Bash: one shell process per command, in its own process group, with a working directory
that persists between calls and output kept in bounded memory; or, with `run_in_background`,
a command left running whose output goes to a log (see `background.py` for the rest)."""

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
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tether.processes import (
    ConfinedCommand,
    signal_name,
    start_environment,
    stop_group,
    stop_once_started,
)
from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.shell_output import OutputCapture
from tether.tools.context import CommandWrapper, ToolContext
from tether.tools.os_errors import os_errors
from tether.tools.os_text import OsText
from tether.tools.run_record import RunRecord

NO_OUTPUT = "(Bash completed with no output)"
"""A command's result when it printed nothing (Claude Code's words: the model reads them)."""
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680"
    + "".join(map(chr, range(0x2000, 0x200B)))
    + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""The white space JavaScript's `trim` removes: what Claude Code strips from a command's output
(Python's `strip()` would also take the separators \x1c-\x1f and \x85)."""

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
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


class BashInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    command: OsText = Field(min_length=1, description="The bash command to run.")
    timeout: int = Field(
        default=DEFAULT_TIMEOUT_MS,
        ge=1,
        le=MAX_TIMEOUT_MS,
        description=f"Milliseconds before the command is stopped (default {DEFAULT_TIMEOUT_MS}, "
        f"max {MAX_TIMEOUT_MS}). Does not apply to run_in_background commands.",
    )
    description: str | None = Field(
        default=None,
        description="What the command does in 5-10 words, shown to the user "
        "(e.g. 'List files in src', 'Run the unit tests').",
    )
    run_in_background: bool = Field(
        default=False,
        description="Run the command without waiting for it: an id comes back at once; read "
        "its output with BashOutput and stop it with KillShell. Use it for servers, watchers "
        "and long builds.",
    )


@tool("Bash", read_only=False)
async def bash(ctx: ToolContext, args: BashInput) -> ToolOutput:
    """Run a bash command and return its output (stdout and stderr together).

    - Each call starts a new non-interactive bash with empty stdin. The working directory
      persists between calls (`cd` carries over); environment variables, aliases and shell
      functions do not.
    - Use the dedicated tools instead of shell equivalents: Read (not cat/head/tail), Edit and
      Write (not sed/echo redirection), Glob (not find/ls -R), Grep (not grep/rg).
    - Quote paths containing spaces. Chain dependent commands with `&&` in one call: several
      Bash calls in one response run at the same time, so one call's `cd` or output cannot
      be relied on by another call of the same response.
    - `timeout` is in milliseconds (default 120000, max 600000); on timeout the command and
      everything it started are stopped.
    - Output over 30,000 characters is cut in the middle; the full output is saved to a file
      named in the result, which you can Read or Grep.
    - A non-zero exit status is reported as an error, with the output.
    - Nothing can answer prompts: avoid interactive commands (editors, `git rebase -i`, pagers).
    - For servers, watchers and long builds set `run_in_background`: the command starts and an
      id (`bash_1`...) comes back at once. Read its new output with BashOutput(bash_id), stop it
      with KillShell(shell_id); you are told when it ends. `timeout` does not apply to it, and
      a `cd` in it does not move the working directory of later commands. Do not use `&` for
      this: what a plain Bash call leaves running in the background is not tracked.
    """
    if ctx.bash_refusal is not None:
        raise ToolError(ctx.bash_refusal)
    notes: list[str] = []
    cwd = ctx.shell_cwd
    if not cwd.is_dir():
        notes.append(
            f"The working directory {cwd} no longer exists; the command ran in the workspace "
            f"{ctx.workspace} instead."
        )
        ctx.cwd = cwd = ctx.workspace
    if args.run_in_background:
        started, shell_id = await _start_in_background(ctx, args.command, cwd, args.description)
        return ToolOutput(
            _with_notes(started, notes), structured=shell_result("", background_id=shell_id)
        )
    run = await run_shell(
        args.command,
        cwd,
        args.timeout / 1000,
        ctx.scratch_dir,
        wrapper=ctx.command_wrapper,
        record=ctx.run,
        env=ctx.env,
    )
    cwd_note = _follow_cwd(ctx, run.final_cwd)
    if cwd_note is not None:
        notes.append(cwd_note)
    if run.confinement_note is not None:
        notes.append(run.confinement_note)
    if run.output_held_open:
        notes.append(
            "Processes started in the background still had the output open when the shell "
            "exited; what they print from now on is discarded (and may stop them). Start "
            "long-running processes with run_in_background instead, to read their output "
            "with BashOutput."
        )
    output = model_output(run.output)
    if run.timed_out:
        seconds = f"{args.timeout / 1000:g}"
        raise ToolError(
            _with_output(f"Command timed out after {seconds} s and was stopped.", output, notes)
        )
    if run.returncode < 0:
        raise ToolError(
            _with_output(f"Killed by signal {signal_name(-run.returncode)}", output, notes)
        )
    if run.returncode != 0:
        raise ToolError(_with_output(f"Exit code {run.returncode}", output, notes))
    body = _with_notes(output or NO_OUTPUT, notes)
    return ToolOutput(body, structured=shell_result(output))


def model_output(output: str) -> str:
    """What a command printed as Claude Code gives it to the model: without its blank lines
    at the start and the white space at the end (a final newline above all), so that a
    session's requests read as Claude Code's and a prompt cached by one serves the other.
    Indentation of the first printed line is kept."""
    start = 0
    while (end := output.find("\n", start)) >= 0 and not output[start:end].strip(_JS_SPACE):
        start = end + 1
    return output[start:].rstrip(_JS_SPACE)


def shell_result(output: str, *, background_id: str | None = None) -> dict[str, Any]:
    """A command's `tool_use_result` in Claude Code's shape: what it printed (stdout and
    stderr together, as `model_output` gives it), nothing of tether's notes."""
    result: dict[str, Any] = {
        "stdout": model_output(output),
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    if background_id is not None:
        result["backgroundTaskId"] = background_id
    return result


def _marker(record: RunRecord | None) -> dict[str, str]:
    return record.environment() if record is not None else {}


def _start_env(
    argv: list[str], environ: Mapping[str, str], cwd: Path, record: RunRecord | None
) -> dict[str, str]:
    """What the command's process is started with: the command's environment with the
    run's marker, which tells the cleanup after a killed run which processes were its, as a
    confinement lets it through (its own program gets no more than the command). The sandbox
    withholds the marker with tether's other variables unless `sandbox.env` lists it: bwrap's
    pid namespace and `--die-with-parent` end what runs inside, and the process group it
    leads is written down."""
    return start_environment(argv, command_environment(environ, cwd) | _marker(record))


def _with_output(what: str, output: str, notes: list[str]) -> str:
    """A failed command's error: what happened, then its output when it printed any."""
    return _with_notes(f"{what}\n{output}" if output else what, notes)


def _with_notes(body: str, notes: list[str]) -> str:
    if not notes:
        return body
    return body.rstrip("\n") + "\n\n" + "\n".join(f"[{note}]" for note in notes)


async def _start_in_background(
    ctx: ToolContext, command: str, cwd: Path, description: str | None
) -> tuple[str, str]:
    """Start the command; what the model is told, and the command's id."""
    with os_errors(f"keep the command's output in {ctx.scratch_dir}"):
        # The confinement makes the command's TMPDIR in the scratch directory.
        argv = _bash_argv(command, cwd, ctx.command_wrapper)
    try:
        with os_errors(f"keep the command's output in {ctx.scratch_dir}"):
            shell = await ctx.background.start(
                command,
                argv,
                cwd=cwd,
                log_dir=ctx.scratch_dir,
                env=_start_env(argv, {**os.environ, **ctx.env}, cwd, ctx.run),
                pass_fds=argv.pass_fds if isinstance(argv, ConfinedCommand) else (),
                description=description or "",
            )
    finally:
        if isinstance(argv, ConfinedCommand):
            argv.spawned()
    if ctx.run is not None:
        ctx.run.process_group(shell.pid)
    told = (
        f"Started background command {shell.id} (pid {shell.pid}). "
        f"Output: {ctx.show(shell.log_path)}. "
        f'Read it with BashOutput(bash_id="{shell.id}"); '
        f'stop it with KillShell(shell_id="{shell.id}").'
    )
    return told, shell.id


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
            argv = _bash_argv(_script(command, cwd_file), cwd, wrapper)
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


def _bash_argv(script: str, cwd: Path, wrapper: CommandWrapper | None) -> list[str]:
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
            env=_start_env(argv, {**os.environ, **env}, cwd, record),
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


def _follow_cwd(ctx: ToolContext, reported: str | None) -> str | None:
    """Move the session's shell directory to where the command left it; a note if refused."""
    if reported is None:
        return None
    try:
        new = Path(reported).resolve(strict=True)
    except OSError:
        ctx.cwd = ctx.workspace
        return (
            f"The shell ended in {reported}, which no longer exists; the working directory "
            f"was reset to the workspace {ctx.workspace}."
        )
    if not new.is_dir() or not ctx.inside_workspace(new):
        ctx.cwd = ctx.workspace
        return (
            f"The shell ended in {new}, outside the workspace; the working directory was reset "
            f"to the workspace {ctx.workspace}."
        )
    ctx.cwd = new
    return None
