"""The `statusLine` setting run as Claude Code runs it (`{"type": "command", "command": ...,
"padding": N}`): the command gets the session as JSON on its stdin (`session_id`,
`transcript_path`, `cwd`, `permission_mode`, `model {id, display_name}`, `workspace
{current_dir, project_dir, added_dirs}`, `version`, `output_style {name}`, `cost`,
`context_window` with the last request's `current_usage` and `used_percentage`), and the first
line it prints is
shown under the message prompt, its ANSI colours kept (other escapes are not).

It runs again when the conversation changed (each time the prompt comes back: after a turn, a
compaction, a rewind, a session switch), one run at a time and at most every 300 ms, never on a
key. Its settings come through the workspace's trust (an untrusted project's `statusLine` is
dropped with its other commands) and `disableAllHooks: true` turns it off, as in Claude Code. A
command that fails, or takes longer than `TIMEOUT_S` (then it is killed, by its process group's
id), is said once; the prompt never waits for it. Shift+Tab runs it again: the mode changed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:
    # prompt_toolkit is loaded with the REPL: `status_setting` is read by headless runs too.
    from prompt_toolkit import PromptSession
    from prompt_toolkit.formatted_text import ANSI, FormattedText

    from tether.cli.startup import Ready
    from tether.protocol import Usage

REFRESH_S = 0.3
TIMEOUT_S = 5.0
HELP = (
    "The status line is the first line printed by the command of the `statusLine` setting, "
    'e.g. in .claude/settings.json: {"statusLine": {"type": "command", "command": '
    '"~/.claude/statusline.sh", "padding": 0}}. It reads the session as JSON on its stdin '
    "(model.display_name, workspace.current_dir, cost.total_cost_usd...) and runs again as "
    "the conversation changes; a project's status line runs once the workspace is trusted."
)
_SGR = re.compile(r"(\x1b\[[0-9;]*m)")


def status_setting(settings: Mapping[str, Any]) -> tuple[str, int] | str | None:
    """The command and padding `statusLine` sets; a sentence when it is malformed; None when
    there is none (or `disableAllHooks` turns it off)."""
    value = settings.get("statusLine")
    if value is None or settings.get("disableAllHooks") is True:
        return None
    if not isinstance(value, dict):
        return "Setting statusLine: expected an object with a command; ignored."
    table = cast(dict[str, Any], value)
    command, padding = table.get("command"), table.get("padding", 0)
    if table.get("type", "command") != "command" or not isinstance(command, str):
        return 'Setting statusLine: expected {"type": "command", "command": "..."}; ignored.'
    if not command.strip():
        return None
    return command, padding if isinstance(padding, int) and 0 <= padding <= 40 else 0


class StatusLine:
    """The status line of a REPL: its command run as the conversation changes, the first line
    of its output kept for the prompt to show."""

    def __init__(self, redraw: Callable[[], None], warn: Callable[[str], None]) -> None:
        self._redraw = redraw
        self._warn = warn
        self._told: set[str] = set()
        self._setting: tuple[str, int] | None = None
        self._text: ANSI | None = None
        self._wanted: Callable[[], dict[str, Any]] | None = None
        self._task: asyncio.Task[None] | None = None
        self._running: asyncio.subprocess.Process | None = None
        self.started = time.monotonic()
        """When the REPL started, or was last cleared (`/clear`), as `time.monotonic`: Claude
        Code's wall duration counts from it."""

    @property
    def shown(self) -> bool:
        return self._text is not None

    def text(self) -> FormattedText:
        from prompt_toolkit.formatted_text import FormattedText

        return FormattedText(self._text.__pt_formatted_text__() if self._text else [])

    def configure(self, setting: tuple[str, int] | str | None) -> None:
        """The session's setting (a session switch may change it)."""
        if isinstance(setting, str):
            self._say(setting)
            setting = None
        if setting != self._setting:
            self._setting, self._text = setting, None

    def refresh(self, ready: Ready) -> None:
        """The conversation changed: run the command again (after the one running, 300 ms
        after the last at the earliest)."""
        if self._setting is None:
            return
        self._wanted = lambda: status_input(ready, self.started)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._runs())

    async def close(self) -> None:
        """The REPL ends: a command still running is killed."""
        self._wanted = None
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _runs(self) -> None:
        while self._wanted is not None and self._setting is not None:
            payload, self._wanted = self._wanted(), None
            await self._run(*self._setting, payload)
            await asyncio.sleep(REFRESH_S)

    async def _run(self, command: str, padding: int, payload: dict[str, Any]) -> None:
        try:
            process = self._running = await asyncio.create_subprocess_shell(
                command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=payload["cwd"],
                start_new_session=True,  # its own process group: killed whole, by its id
            )
        except OSError as e:
            self._say(f"statusLine command could not start: {e.strerror or e}")
            return
        try:
            data = json.dumps(payload).encode()
            async with asyncio.timeout(TIMEOUT_S):
                out, err = await process.communicate(data)
        except TimeoutError:
            self._say(f"statusLine command took over {TIMEOUT_S:g} s: stopped ({command})")
            return
        finally:
            if process.returncode is None:
                _kill(process)
                await process.wait()
            self._running = None
        if process.returncode != 0:
            said = err.decode("utf-8", "replace").strip().splitlines()
            why = f": {said[0]}" if said else ""
            self._say(f"statusLine command failed (exit {process.returncode}){why}")
            return
        from prompt_toolkit.formatted_text import ANSI

        lines = out.decode("utf-8", "replace").splitlines()
        self._text = ANSI(" " * padding + _kept_colours(lines[0] if lines else ""))
        self._redraw()

    def _say(self, sentence: str) -> None:
        if sentence not in self._told:
            self._told.add(sentence)
            self._warn(sentence)


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _kept_colours(line: str) -> str:
    """`line` with its colours (SGR) kept and every other control character made visible."""
    return "".join(p if _SGR.fullmatch(p) else terminal_safe(p) for p in _SGR.split(line))


def status_input(ready: Ready, started: float) -> dict[str, Any]:
    """What the command reads on its stdin, in Claude Code's shape."""
    from tether import __version__
    from tether.cli.repl_commands import permission_mode
    from tether.core.cut_replies import display_name

    session = ready.session
    model = session.agent.model_id
    cwd = session.started().cwd
    recorder = session.recorder
    usage = session.usage
    window = session.agent.compaction.policy.window if session.agent.compaction else 0
    added = [str(d) for d in session.agent.tool_context.extra_dirs]
    return {
        "hook_event_name": "Status",
        "session_id": session.session_id,
        "transcript_path": str(recorder.path) if recorder is not None and recorder.path else "",
        "cwd": cwd,
        "permission_mode": permission_mode(session),
        "model": {"id": model, "display_name": display_name(model)},
        "workspace": {
            "current_dir": cwd,
            "project_dir": str(ready.options.cwd),
            "added_dirs": added,
        },
        "version": __version__,
        "output_style": {"name": ready.output_style},
        "cost": {
            "total_cost_usd": session.cost_usd,
            "total_duration_ms": int((time.monotonic() - started) * 1000),
            "total_api_duration_ms": session.api_ms,
            "total_lines_added": session.lines_added,
            "total_lines_removed": session.lines_removed,
        },
        "context_window": {
            "total_input_tokens": usage.input_tokens,
            "total_output_tokens": usage.output_tokens,
            "context_window_size": window,
            **_window_now(session.last_usage, window),
        },
        "exceeds_200k_tokens": session.context_tokens > 200_000,
    }


def _window_now(last: Usage | None, window: int) -> dict[str, Any]:
    """Claude Code's `current_usage` (the last request's counts; null before the first) and
    the share of the window its input fills (`used_percentage`, from the input alone, and
    `remaining_percentage`; null while nothing was measured)."""
    if last is None or window <= 0:
        return {"current_usage": None, "used_percentage": None, "remaining_percentage": None}
    used = min(100.0, round(last.context_tokens * 100 / window, 1))
    current = {
        "input_tokens": last.input_tokens,
        "output_tokens": last.output_tokens,
        "cache_creation_input_tokens": last.cache_creation_input_tokens,
        "cache_read_input_tokens": last.cache_read_input_tokens,
    }
    return {
        "current_usage": current,
        "used_percentage": used,
        "remaining_percentage": round(100.0 - used, 1),
    }


def show_under(prompt: PromptSession[str], status: StatusLine) -> None:
    """Draw the status line under the prompt's input, above its footer, while it is typed."""
    from prompt_toolkit.filters import Condition, is_done
    from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, HSplit, Window

    line = ConditionalContainer(
        Window(FormattedTextControl(status.text), height=1, dont_extend_height=True),
        filter=~is_done & Condition(lambda: status.shown),
    )
    container = prompt.app.layout.container
    assert isinstance(container, HSplit)
    container.children.insert(len(container.children) - 1, line)
