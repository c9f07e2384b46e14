"""Bash: one shell process per command, in its own process group, with a working directory
that persists between calls and output kept in bounded memory; or, with `run_in_background`,
a command left running whose output goes to a log (see `background.py` for the rest). How
one command is run is `shell_run.py`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tether.processes import ConfinedCommand, signal_name
from tether.protocol import BareToolError, ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.shell_run import bash_argv, run_shell, start_env
from tether.tools.context import ToolContext
from tether.tools.os_errors import os_errors
from tether.tools.os_text import OsText

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
        # Claude Code's words: the exit status of a command its SIGTERM ended, then why,
        # in whole seconds rounded down.
        said = f"Exit code 143\nCommand timed out after {args.timeout // 1000}s"
        raise BareToolError(_with_output(said, output, notes))
    if run.returncode < 0:
        raise ToolError(
            _with_output(f"Killed by signal {signal_name(-run.returncode)}", output, notes)
        )
    if run.returncode != 0:
        raise BareToolError(_with_output(f"Exit code {run.returncode}", output, notes))
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
        argv = bash_argv(command, cwd, ctx.command_wrapper)
    try:
        with os_errors(f"keep the command's output in {ctx.scratch_dir}"):
            shell = await ctx.background.start(
                command,
                argv,
                cwd=cwd,
                log_dir=ctx.scratch_dir,
                env=start_env(argv, {**os.environ, **ctx.env}, cwd, ctx.run),
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
