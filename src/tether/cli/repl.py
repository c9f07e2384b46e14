"""The interactive prompt: read a message (prompt_toolkit), run the turn, show its events (rich).

The prompt comes first. The banner and the prompt are drawn before the session exists; the
session (settings, model, tools: every other layer of tether, a few hundred milliseconds of
imports) is built in a worker thread while the user types. A message sent before it is ready
waits for it; a configuration that cannot work (no API key...) aborts the prompt, is shown, and
ends the REPL with exit code 2.

While a turn runs no prompt is on screen, so the renderer owns the terminal; Ctrl+C is then a
signal that interrupts the turn and keeps the session. At the prompt Ctrl+C is a key: it clears
the line, and on an empty line, pressed twice, exits.

A tool call that needs approval pauses the turn: the renderer prints the question and stops its
live region, `tether.cli.ask` reads the answer, the answer goes to the session, and the renderer
resumes.

`/name args` runs the skill `name` of the session's catalogue (built-in commands win): its
instructions are loaded here and sent as the user's message.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.text import Text

from tether.cli.ask import (
    REWIND_KEYS,
    PermissionKey,
    message_prompt,
    sigint_calls,
)
from tether.cli.late_hooks import late_output
from tether.cli.mcp_startup import settle_servers
from tether.cli.repl_commands import mcp_failure_line
from tether.cli.repl_dispatch import NO_PLAN as NO_PLAN
from tether.cli.repl_dispatch import Next
from tether.cli.repl_help import KEYS_HINT as KEYS_HINT
from tether.cli.repl_help import print_banner
from tether.cli.repl_restarts import CLEARED as CLEARED
from tether.cli.repl_rewind import Checkpoints
from tether.cli.repl_sessions import show_recent
from tether.cli.repl_signals import leave_hung_up_terminal, say_stopped, stop_on_signals
from tether.cli.repl_team import TEAM_TURN, team_message_line, team_prompt, wake_for_team
from tether.cli.repl_turn import ReplTurns, is_command
from tether.cli.startup import INTERRUPTED_HINT as INTERRUPTED_HINT
from tether.cli.startup import (
    LazyOptions,
    Ready,
    SessionStartup,
    StartupFailed,
)
from tether.cli.status_line import StatusLine, show_under
from tether.cli.steer import KeyboardHold
from tether.cli.terminal_text import terminal_safe
from tether.cli.trust_prompt import settle_trust
from tether.config.project import project_root
from tether.config.settings import tether_home

if TYPE_CHECKING:
    # Only for annotations: these import pydantic and every layer, which must wait until the
    # prompt is on screen (see tether.cli.startup).
    from tether.cli.setup import RunOptions
    from tether.store.mailbox import Message as TeamMessage

EXIT_HINT = "Press Ctrl+C again or Ctrl+D to exit."


async def run_repl(
    opts: RunOptions | LazyOptions,
    *,
    initial_prompt: str | None = None,
    input: Input | None = None,
    output: Output | None = None,
    console: Console | None = None,
) -> int:
    """Run the interactive session until the user leaves; 0 then, 2 when the configuration is
    unusable (no API key...). The session is built while the first prompt is on screen; with
    `LazyOptions` the options are made then too. `input`, `output` and `console` default to the
    terminal; tests pass a pipe input, a dummy output and a console writing to a buffer."""
    console = console or Console()
    env = None if isinstance(opts, LazyOptions) else opts.env
    workspace = project_root(opts.cwd, user_home=Path.home())
    print_banner(console, workspace)
    # Before the session exists: nothing the workspace declares has run yet.
    kept: list[str] = []  # typed at the questions, not answering them: for the prompt
    opts = await settle_trust(opts, console, input, output, kept)
    opts = await settle_servers(opts, console, input, output)  # as Claude Code, before the prompt
    startup = SessionStartup(opts, console)
    mode_changed: list[Callable[[], None]] = []
    prompt = message_prompt(_history_path(env), startup, input, output, mode_changed)
    status = StatusLine(prompt.app.invalidate, lambda said: _warn(console, said))

    def mode_changed_now() -> None:  # the status line's command may show the mode
        if startup.ready is not None:
            status.refresh(startup.ready)

    mode_changed.append(mode_changed_now)
    show_under(prompt, status)
    repl = _Repl(startup, console, prompt, status, watch_terminal=input is None, kept=kept)
    try:
        with sigint_calls(repl.interrupt_turn), stop_on_signals(repl.stop_by_signal):
            code = await repl.run(initial_prompt)
        await startup.wait()  # a broken configuration is told even to a user who left at once
    except StartupFailed as e:
        console.print(Text(f"tether: {terminal_safe(str(e))}", style="red"))
        return 2
    finally:
        await status.close()
        await startup.close(repl.exit_reason)
    return code if repl.stopped_by is None else say_stopped(repl.stopped_by)


class _Repl(ReplTurns):
    def __init__(
        self,
        startup: SessionStartup,
        console: Console,
        prompt: PromptSession[str],
        status: StatusLine,
        *,
        watch_terminal: bool,
        kept: list[str] | None = None,
    ) -> None:
        self.status = status
        """The `statusLine` command's line under the prompt (`tether.cli.status_line`)."""
        self.startup = startup
        self.console = console
        self.prompt = prompt
        self.watch_terminal = watch_terminal
        self._waiting: asyncio.Task[Ready] | None = None
        self._asking: asyncio.Task[tuple[PermissionKey, str | None]] | None = None
        self._changing: asyncio.Task[Text] | None = None
        self._prefill = ""
        """Typed during the last turn and not sent: the next prompt starts with it."""
        self._kept: list[str] = kept if kept is not None else []
        """Lines typed at a question that did not answer it: the next prompt starts with them."""
        self._redraw_whole = False
        self._same_session = False
        self._typed_ahead: list[str | None] = []
        """Lines typed during the last turn for the prompt, not the model: from the first
        command on (a command is never a message for the model; what follows it keeps its
        order), None for a Ctrl+D among them. They are read as typed at the prompt once the
        turn is over."""
        self._preparing: asyncio.Task[None] | None = None
        self._beginning: asyncio.Task[None] | None = None
        self._interrupted = False
        self._leave_after_turn = False
        self.stopped_by: int | None = None
        """The signal (SIGTERM, SIGHUP) that ended the REPL, if one did."""
        self._shell_context: list[str] = []
        """`!command`s run since the last message, with their output: the next one carries
        them to the model."""
        self._model_spec: str | None = None
        """The model chosen with /model: a session switched to (or cleared) keeps it."""
        self._told: set[str] = set()
        """The start-up notices said so far: those about the project's files (see
        `Session.file_notices`) are said once per REPL, the others again by each new session."""
        self._checkpoints = Checkpoints()
        """The messages sent in this session, for Esc Esc (`tether.cli.repl_rewind`)."""
        self._keys = KeyboardHold(prompt.input)
        """Raw mode from a turn to the prompt and back, so no key typed ahead is lost."""
        self.exit_reason = "other"
        """What the last session's SessionEnd hooks are told: "prompt_input_exit" when the
        user left at the prompt (Ctrl+D, /exit, Ctrl+C twice), as in Claude Code."""
        startup.building.add_done_callback(self._on_startup_done)

    async def run(self, initial_prompt: str | None) -> int:
        try:
            return await self._run(initial_prompt)
        finally:
            self._keys.release()

    async def _run(self, initial_prompt: str | None) -> int:
        if initial_prompt and initial_prompt.strip():
            self.prompt.history.append_string(initial_prompt)
            self.console.print(Text(f"> {initial_prompt}", style="bold"))
            await self.run_turn(initial_prompt)
        interrupted_once = False
        while not self._leave_after_turn:
            try:
                text = await self.next_line()
            except KeyboardInterrupt:
                if interrupted_once:
                    self.exit_reason = "prompt_input_exit"
                    return 0
                interrupted_once = True
                self.console.print(Text(EXIT_HINT, style="dim"))
                continue
            except EOFError:
                if self.stopped_by is None:
                    self.exit_reason = "prompt_input_exit"
                return 0
            interrupted_once = False
            if text == TEAM_TURN:
                text = team_prompt(self.startup.ready)
            if text == REWIND_KEYS:
                self._keys.release()  # what runs now may need Ctrl+C as a signal
                await self.rewind()
                continue
            text = text.strip()
            if not text:
                continue
            if text.startswith("!") or is_command(text):
                self._keys.release()
            if text.startswith("!"):
                await self.run_shell(text[1:].strip())
                continue
            if is_command(text):
                if await self.run_command(text) is Next.EXIT:
                    self.exit_reason = "prompt_input_exit"
                    return 0
                continue
            await self.run_turn(text)
        return 0

    async def next_line(self) -> str:
        """The next line typed at the prompt: those typed ahead during the last turn first."""
        if not self._typed_ahead:
            return await self.read_message()
        line = self._typed_ahead.pop(0)
        if line is None:  # Ctrl+D, typed after the lines before it
            raise EOFError
        return line

    async def read_message(self) -> str:
        """The next message typed at the prompt. A session that fails to start meanwhile
        aborts the prompt (see `_on_startup_done`) and its error is raised instead."""
        self.startup.raise_failure()
        prefill = "\n".join(line for line in (*self._kept, self._prefill) if line)
        self._prefill, self._kept[:] = "", []
        if self.startup.ready is not None:  # the conversation may have changed since
            self.status.refresh(self.startup.ready)
        self._keys.hold()  # kept after the prompt too, until what the line asks for is known
        with patch_stdout(raw=True):
            return await self.prompt.prompt_async(default=prefill)

    def _on_startup_done(self, building: asyncio.Task[Ready]) -> None:
        app = self.prompt.app
        error = None if building.cancelled() else building.exception()
        if error is None:
            self.show_startup_notices()
            app.invalidate()  # the toolbar can name the model now
            ready = self.startup.ready
            if ready is not None and ready.lead is not None:
                ready.lead.shown.append(self.show_team_message)
                ready.lead.warnings.append(self.show_team_warning)
            if ready is not None and (late := late_output(ready.session)) is not None:
                late.wakers.append(self.show_hook_wake)
            if ready is not None and ready.mcp is not None:
                listeners = ready.mcp.failure_listeners  # the same after `/clear` carried them
                if self.show_mcp_failure not in listeners:
                    listeners.append(self.show_mcp_failure)
            if ready is not None:
                self.status.configure(ready.status_line)
                self.status.refresh(ready)
                # SessionStart hooks run as the session appears, as in Claude Code.
                self._beginning = asyncio.create_task(self._begin(ready))
            if ready is not None and not ready.session.startup_questions:
                # Connect MCP servers while the user types.
                self._preparing = asyncio.create_task(self._prepare(ready))
        elif app.is_running and app.future is not None and not app.future.done():
            app.exit(exception=error)
        # Otherwise no prompt is waiting: the next wait for the session, or the next prompt,
        # raises the error.

    def show_team_message(self, message: TeamMessage) -> None:
        self.console.print(team_message_line(message))
        wake_for_team(self.prompt, self.startup.ready)

    def show_hook_wake(self, text: str) -> None:
        """An `asyncRewake` hook's exit 2, shown; it starts a turn when none runs."""
        self.console.print(Text(f"⚑ {terminal_safe(text)}", style="yellow"))
        wake_for_team(self.prompt, self.startup.ready)

    def show_team_warning(self, text: str) -> None:
        self.console.print(Text(f"⚠ {terminal_safe(text)}", style="yellow"))

    def show_mcp_failure(self, server: str) -> None:
        """A server that failed to connect in the background, in one line (`/mcp` says why)."""
        self.console.print(Text(mcp_failure_line(server), style="yellow"))

    def show_startup_notices(self) -> None:
        """Say what the session wants said at its start, once it is built (before any wait
        for it ends): above the prompt, or under the banner when no prompt is on screen yet."""
        ready = self.startup.ready
        if ready is None:  # the building was cancelled
            return
        same, self._same_session = self._same_session, False
        for notice in ready.session.startup_notices:
            if notice in self._told and (same or notice in ready.session.file_notices):
                continue  # said when an earlier session of this REPL started
            self._told.add(notice)
            self.console.print(Text(f"⚠ {terminal_safe(notice)}", style="yellow"))
        if ready.session.resumed is not None and not same:
            self.console.print(Text(f"↺ {ready.session.resumed}", style="cyan"))
            whole, self._redraw_whole = self._redraw_whole, False
            show_recent(self.console, ready.session, None if whole else 4)

    def stop_by_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP (see `tether.cli.repl_signals`): leave the prompt, or stop the
        running turn and leave after it."""
        self.stopped_by = self.stopped_by or signum
        if signum == signal.SIGHUP:
            leave_hung_up_terminal()  # its turn's end is drawn nowhere, not failed (EIO)
        self._leave_after_turn = True
        self.exit_reason = "other"
        app = self.prompt.app
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(exception=EOFError())
        else:
            self.interrupt_turn()


def _warn(console: Console, said: str) -> None:
    console.print(Text(f"⚠ {terminal_safe(said)}", style="yellow"), highlight=False)


def _history_path(env: Mapping[str, str] | None) -> Path:
    home = tether_home(env)
    home.mkdir(parents=True, exist_ok=True)
    return home / "history"
