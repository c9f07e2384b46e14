"""BashOutput and KillShell: reading and stopping the commands Bash started with
`run_in_background` (kept in `ctx.background`, a `BackgroundShells`)."""

from __future__ import annotations

import asyncio
import io
import re
from collections import deque
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.background_shells import BackgroundShell, BackgroundShells
from tether.tools.background_words import NO_NEW_MATCHES, NO_NEW_OUTPUT
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.files import human_size
from tether.tools.builtin.shell_output import SHOWN_CHARS
from tether.tools.capped_log import CappedLog
from tether.tools.context import ToolContext

_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


class BashOutputInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    bash_id: str = Field(description='The id Bash gave the background command, e.g. "bash_1".')
    filter: str | None = Field(
        default=None,
        description="A regular expression: only the new lines matching it are shown (the "
        "others are still counted as read).",
    )


@tool("BashOutput", read_only=True)
async def bash_output(ctx: ToolContext, args: BashOutputInput) -> ToolOutput:
    """Read what a background command (started by Bash with `run_in_background`) printed since
    the last BashOutput call for it, and whether it is still running or how it ended.

    - stdout and stderr come together, as the command printed them.
    - At most the last 30,000 characters of new output are shown; the full log is in the file
      named in the result, which you can Read or Grep.
    - `filter` keeps only the new lines matching a regular expression; a line still being
      written is left for the next read.
    """
    shell = ctx.background.get(args.bash_id)
    pattern = _compile(args.filter)
    # The status first: when it says the command ended, everything it printed is in the log.
    status = shell.status()
    finished = shell.returncode is not None
    await shell.settle()
    new = _read_new(shell, pattern, finished=finished)
    if finished:
        shell.announced = True
    parts: list[str] = []
    if shell.confined is not None and not finished:
        # The sandbox disables what the command made so far that git outside would run.
        note = await asyncio.to_thread(shell.confined.checkpoint)
        if note:
            parts.append(f"[sandbox: {note}]")
    if new.lost_bytes:
        cap = human_size(shell.log.cap_bytes)
        total = human_size(shell.log.budget.total_bytes)
        why = (
            f"the logs of this session's background commands keep at most {total} together"
            if shell.log.squeezed
            else f"a background command's log keeps at most {cap}"
        )
        parts.append(
            f"[... {new.lost_bytes:,} bytes of output were dropped before they were read: "
            f"{why}, its newest output ...]"
        )
    if shell.log.error is not None:
        parts.append(
            f"[... output after the first {human_size(shell.log.saved_end)} could not be "
            f"saved: {shell.log.error} ...]"
        )
    if new.skipped_bytes:
        what = "matching lines" if pattern is not None else "output"
        parts.append(
            f"[... {new.skipped_bytes:,} bytes of earlier {what} skipped; the full log is "
            f"{ctx.show(shell.log_path)} ...]"
        )
    nothing = NO_NEW_MATCHES if pattern is not None else NO_NEW_OUTPUT
    output = new.text.rstrip("\n")
    parts.append(output or nothing)
    parts.append(f"\n[Status: {status}]")
    structured = {
        "shellId": shell.id,
        "command": shell.command,
        "status": _state(shell),
        "exitCode": shell.returncode,
        "stdout": output,
        "stderr": "",
        "stdoutLines": output.count("\n") + 1 if output else 0,
        "stderrLines": 0,
        **({"filterPattern": args.filter} if args.filter else {}),
    }
    return ToolOutput("\n".join(parts), structured=structured)


def _state(shell: BackgroundShell) -> str:
    """Claude Code's word for where a background command is: running, completed, failed,
    killed."""
    if shell.returncode is None:
        return "running"
    if shell.stopped:
        return "killed"
    return "completed" if shell.returncode == 0 else "failed"


class KillShellInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    shell_id: str = Field(description='The id of the background command to stop, e.g. "bash_1".')


@tool("KillShell", read_only=False)
async def kill_shell(ctx: ToolContext, args: KillShellInput) -> ToolOutput:
    """Stop a background command started by Bash with `run_in_background`, and every process
    it started (its whole process group: SIGTERM, then SIGKILL after a second)."""
    shell = ctx.background.get(args.shell_id)
    if shell.returncode is not None:
        shell.announced = True
        message = (
            f"Background command {shell.id} had already finished ({shell.status()}); "
            "nothing to stop."
        )
    else:
        await ctx.background.stop(shell)
        message = (
            f"Stopped background command {shell.id} (`{shell.short_command}`): {shell.status()}."
        )
    # Claude Code's TaskStop result.
    structured = {
        "message": message,
        "task_id": shell.id,
        "task_type": "local_bash",
        "command": shell.command,
    }
    return ToolOutput(message, structured=structured)


def _compile(expression: str | None) -> re.Pattern[str] | None:
    if expression is None:
        return None
    try:
        return re.compile(expression)
    except re.error as e:
        raise ToolError(f"Invalid regular expression {expression!r} for filter: {e}") from None


@dataclass(frozen=True)
class _NewOutput:
    text: str
    skipped_bytes: int
    """New output (or matching lines) left out to keep within SHOWN_CHARS."""
    lost_bytes: int = 0
    """New output the log no longer holds: dropped, oldest first, to keep it under its cap."""


class _LogReader(io.RawIOBase):
    """The log read from an offset counted since the command started, through tether's own
    descriptor (never the path, where the command may have put a link to another file)."""

    def __init__(self, log: CappedLog, position: int) -> None:
        self._log = log
        self.position = position

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._log.read(self.position, len(buffer))
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)


def _read_new(
    shell: BackgroundShell, pattern: re.Pattern[str] | None, *, finished: bool
) -> _NewOutput:
    """The log from `shell.read_offset` on, which then moves past what was read. Memory stays
    bounded however large the log has grown."""
    log = shell.log
    end = log.saved_end
    lost = max(0, log.dropped - shell.read_offset)
    start = shell.read_offset = min(max(shell.read_offset, log.dropped), end)
    try:
        if pattern is None:
            skipped = max(0, end - start - SHOWN_CHARS)
            data = log.read(start + skipped, end - start - skipped)
            if not finished:
                data = data[: _complete_utf8_length(data)]
            shell.read_offset = start + skipped + len(data)
            if skipped or lost:
                data = data.lstrip(_CONTINUATION_BYTES)
            return _NewOutput(data.decode("utf-8", errors="replace"), skipped, lost)
        reader = io.BufferedReader(_LogReader(log, start))
        return _matching_lines(shell, reader, pattern, end=end, finished=finished, lost=lost)
    except OSError as e:
        raise ToolError(
            f"Could not read the log of {shell.id} ({shell.log_path}): {e.strerror or e}"
        ) from None


def _matching_lines(
    shell: BackgroundShell,
    log: io.BufferedReader[_LogReader],
    pattern: re.Pattern[str],
    *,
    end: int,
    finished: bool,
    lost: int,
) -> _NewOutput:
    # Lines longer than SHOWN_CHARS bytes are matched in pieces of that size.
    kept: deque[tuple[str, int]] = deque()
    kept_chars = 0
    skipped = 0
    position = shell.read_offset
    while position < end:
        line = log.readline(min(SHOWN_CHARS, end - position))
        if not line:
            break
        partial = not line.endswith(b"\n") and len(line) < SHOWN_CHARS
        if partial and not finished:
            break
        position += len(line)
        text = line.decode("utf-8", errors="replace")
        if pattern.search(text) is None:
            continue
        kept.append((text, len(line)))
        kept_chars += len(text)
        while kept_chars > SHOWN_CHARS:
            dropped, size = kept.popleft()
            kept_chars -= len(dropped)
            skipped += size
    shell.read_offset = position
    return _NewOutput("".join(text for text, _ in kept), skipped, lost)


def _complete_utf8_length(data: bytes) -> int:
    """`len(data)` less a UTF-8 sequence cut short at the end (its rest has not been written
    yet, and is read next time)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return len(data)
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) - back if back < needed else len(data)
    return len(data)


# BackgroundShells lives in tether.tools.background_shells; importable from here too.
__all__ = ["BackgroundShells", "bash_output", "kill_shell"]
