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
live region, a one-line prompt_toolkit application reads a single key (1 once, 2 always, 3 deny;
Tab denies with a message for the model; Ctrl+C denies and interrupts the turn), the answer goes
to the session, and the renderer resumes.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
from collections.abc import Callable, Generator, Mapping
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal

from prompt_toolkit import Application, PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl, Layout, Window
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.styles import Style
from rich.console import Console
from rich.text import Text

from tether import __version__
from tether.cli.startup import LazyOptions, Ready, SessionStartup, StartupFailed
from tether.cli.startup import close_model as close_model  # the demo's import
from tether.config.settings import tether_home

if TYPE_CHECKING:
    # Only for annotations: these import pydantic and every layer, which must wait until the
    # prompt is on screen (see tether.cli.startup).
    from tether.cli.setup import RunOptions
    from tether.core.session import Session
    from tether.protocol import PermissionAsked

EXIT_HINT = "Press Ctrl+C again or Ctrl+D to exit."
KEYS_HINT = "enter send · alt+enter new line · /help · ctrl+d exit"
TOOLBAR_HINT = "alt+enter new line · /help"
INTERRUPTED_HINT = "⏹ Interrupted"

HELP = """\
Commands
  /help          this help
  /cost          tokens used and cost of this session
  /clear         clear the screen (the conversation is kept)
  /exit, /quit   leave tether (so does Ctrl+D)

Keys
  Enter          send the message
  Alt+Enter      new line (or Esc then Enter); pasted text stays one message
  Up / Down      previous messages (history)
  Ctrl+C         interrupt the agent; at an empty prompt, twice to exit
  Ctrl+D         exit"""

_COMMAND = re.compile(r"/[A-Za-z][\w-]*")
_STYLE = Style.from_dict(
    {
        "prompt": "bold ansicyan",
        "continuation": "ansibrightblack",
        "bottom-toolbar": "noreverse ansibrightblack",
        "question": "bold ansiyellow",
        "hint": "ansibrightblack",
    }
)

_Key = Literal["allow_once", "allow_always", "deny", "tell", "interrupt"]
"""What a key pressed at a permission question means; "tell" denies with a message."""

PERMISSION_KEYS: Mapping[_Key, tuple[str, ...]] = {
    "allow_once": ("1", "y", "Y"),
    "allow_always": ("2",),
    "deny": ("3", "n", "N", "escape", "c-d"),
    "tell": ("tab",),
    "interrupt": ("c-c", "<sigint>"),
}
"""The keys that answer a permission question. Anything else is ignored, Enter included: a
question must not be answered by a key meant for something else."""

ESCAPE_TIMEOUT_S = 0.1
"""How long a lone Esc waits to be told from the start of an escape sequence (an arrow key):
short, so that Esc denies at once; a sequence split later than this is still read as a denial."""


class _Next(Enum):
    PROMPT = "prompt"
    EXIT = "exit"


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
    workspace = opts.cwd.expanduser().resolve()
    _print_banner(console, workspace)
    startup = SessionStartup(opts, console)
    prompt = _prompt_session(_history_path(env), startup, input, output)
    repl = _Repl(startup, console, prompt, watch_terminal=input is None)
    try:
        with _sigint_calls(repl.interrupt_turn):
            code = await repl.run(initial_prompt)
        await startup.wait()  # a broken configuration is told even to a user who left at once
    except StartupFailed as e:
        console.print(Text(f"tether: {e}", style="red"))
        return 2
    finally:
        await startup.close()
    return code


class _Repl:
    def __init__(
        self,
        startup: SessionStartup,
        console: Console,
        prompt: PromptSession[str],
        *,
        watch_terminal: bool,
    ) -> None:
        self.startup = startup
        self.console = console
        self.prompt = prompt
        self.watch_terminal = watch_terminal
        self._waiting: asyncio.Task[Ready] | None = None
        self._asking: asyncio.Task[tuple[_Key, str | None]] | None = None
        self._notices_shown = False
        startup.building.add_done_callback(self._on_startup_done)

    async def run(self, initial_prompt: str | None) -> int:
        if initial_prompt and initial_prompt.strip():
            self.prompt.history.append_string(initial_prompt)
            self.console.print(Text(f"> {initial_prompt}", style="bold"))
            await self.run_turn(initial_prompt)
        interrupted_once = False
        while True:
            try:
                text = await self.read_message()
            except KeyboardInterrupt:
                if interrupted_once:
                    return 0
                interrupted_once = True
                self.console.print(Text(EXIT_HINT, style="dim"))
                continue
            except EOFError:
                return 0
            interrupted_once = False
            text = text.strip()
            if not text:
                continue
            if _COMMAND.fullmatch(text.split(maxsplit=1)[0]):
                if await self.run_command(text) is _Next.EXIT:
                    return 0
                continue
            await self.run_turn(text)

    async def read_message(self) -> str:
        """The next message typed at the prompt. A session that fails to start meanwhile
        aborts the prompt (see `_on_startup_done`) and its error is raised instead."""
        self.startup.raise_failure()
        with patch_stdout(raw=True):
            return await self.prompt.prompt_async()

    def _on_startup_done(self, building: asyncio.Task[Ready]) -> None:
        app = self.prompt.app
        error = None if building.cancelled() else building.exception()
        if error is None:
            self.show_startup_notices()
            app.invalidate()  # the toolbar can name the model now
        elif app.is_running and app.future is not None and not app.future.done():
            app.exit(exception=error)
        # Otherwise no prompt is waiting: the next wait for the session, or the next prompt,
        # raises the error.

    def show_startup_notices(self) -> None:
        """Say what the session wants said at its start (once): above the prompt, or under
        the banner when no prompt is on screen yet."""
        ready = self.startup.ready
        if ready is None or self._notices_shown:
            return
        self._notices_shown = True
        for notice in ready.session.startup_notices:
            self.console.print(Text(f"⚠ {notice}", style="yellow"))

    async def run_turn(self, text: str) -> None:
        """Run one turn as a task, so that Ctrl+C (SIGINT) can interrupt it meanwhile."""
        self.console.line()
        with _no_echo(self.watch_terminal):
            ready = await self._session()
            if ready is None:
                return
            task = asyncio.create_task(self._show_turn(ready, text))
            await task

    async def _session(self) -> Ready | None:
        """The session, waiting for it if it is still being built; None when Ctrl+C drops
        the message that waits."""
        if self.startup.ready is not None:
            self.show_startup_notices()
            return self.startup.ready
        self._waiting = asyncio.create_task(self.startup.wait())
        try:
            ready = await self._waiting
            self.show_startup_notices()
            return ready
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            self.console.print(Text(INTERRUPTED_HINT, style="yellow"))
            return None
        finally:
            self._waiting = None

    def interrupt_turn(self) -> None:
        """Ctrl+C outside the prompt: stop the running turn (the session stays), or drop the
        message that waits for the session, or deny the call being asked about and stop."""
        ready = self.startup.ready
        if self._waiting is not None:
            self._waiting.cancel()
        elif self._asking is not None:
            self._asking.cancel()
        elif ready is not None and ready.session.busy:
            ready.session.interrupt()

    async def _show_turn(self, ready: Ready, text: str) -> None:
        from tether.protocol import PermissionAsked, UserInput  # loaded with the session

        try:
            async for event in ready.session.submit(UserInput(text=text)):
                ready.renderer.render(event)
                if isinstance(event, PermissionAsked):
                    # The turn waits for this answer; the next ask is read after it.
                    await self._answer(ready, event)
        finally:
            ready.renderer.close()
        self.console.line()

    async def _answer(self, ready: Ready, request: PermissionAsked) -> None:
        """Ask the user about one call and give the session the answer; Ctrl+C denies the
        call and interrupts the turn."""
        from tether.protocol import PermissionAnswer

        if self.watch_terminal:
            _discard_typeahead(self.prompt.input)
        self._asking = asyncio.create_task(
            read_permission_answer(
                self.prompt.input, self.prompt.output, can_remember=request.suggestion is not None
            )
        )
        try:
            key, message = await self._asking
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            key, message = "interrupt", None  # Ctrl+C as a signal, before the keys were read
        finally:
            self._asking = None
        choice = "deny" if key in ("tell", "interrupt") else key
        answer = PermissionAnswer(request_id=request.request_id, choice=choice, message=message)
        ready.session.answer(answer)
        if key == "interrupt":
            ready.session.interrupt()
        else:
            ready.renderer.answered(request, answer)

    async def run_command(self, line: str) -> _Next:
        """A slash command; the rest of the line is ignored by all of today's commands."""
        name = line.split(maxsplit=1)[0].lower()
        if name in ("/exit", "/quit"):
            return _Next.EXIT
        if name == "/help":
            self.console.print(HELP, markup=False, highlight=False)
        elif name == "/cost":
            ready = await self._session()
            if ready is not None:
                self.console.print(describe_cost(ready.session), markup=False, highlight=False)
        elif name == "/clear":
            self.console.clear()
            self.console.print(
                Text(
                    "Screen cleared. The conversation is kept; start a new tether to begin afresh.",
                    style="dim",
                )
            )
        else:
            self.console.print(
                Text(f"Unknown command {name}. Type /help for the commands.", style="yellow")
            )
        return _Next.PROMPT


async def read_permission_answer(
    input: Input | None, output: Output | None, *, can_remember: bool
) -> tuple[_Key, str | None]:
    """Read the answer to a permission question (printed above by the renderer): the key's
    meaning (see `PERMISSION_KEYS`; "allow_always" only when `can_remember`), and for "tell"
    the message typed for the model (None when left empty)."""
    bindings = KeyBindings()
    for meaning, keys in PERMISSION_KEYS.items():
        if meaning == "allow_always" and not can_remember:
            continue
        for key in keys:
            bindings.add(key, eager=True)(_exit_with(meaning))
    choices = "1, 2 or 3" if can_remember else "1 or 3"
    hint = FormattedText([("class:question", "  → "), ("class:hint", f"press {choices}")])
    app: Application[_Key] = Application(
        layout=Layout(Window(FormattedTextControl(hint, show_cursor=False), height=1)),
        key_bindings=bindings,
        style=_STYLE,
        input=input,
        output=output,
        erase_when_done=True,
    )
    app.ttimeoutlen = ESCAPE_TIMEOUT_S
    try:
        key = await app.run_async()
    except EOFError:  # the input is gone: nobody is there to approve anything
        return "interrupt", None
    if key != "tell":
        return key, None
    return await _read_denial_message(input, output)


async def _read_denial_message(
    input: Input | None, output: Output | None
) -> tuple[_Key, str | None]:
    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    def _without_message(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.app.exit(result="")

    reader: PromptSession[str] = PromptSession(
        message=FormattedText([("class:question", "  ✎ Tell the model why: ")]),
        key_bindings=bindings,
        style=_STYLE,
        input=input,
        output=output,
    )
    reader.app.ttimeoutlen = ESCAPE_TIMEOUT_S
    try:
        message = await reader.prompt_async()
    except KeyboardInterrupt:
        return "interrupt", None
    except EOFError:
        return "deny", None
    return "tell", message.strip() or None


def _exit_with(result: _Key) -> Callable[[KeyPressEvent], None]:
    def handler(event: KeyPressEvent) -> None:
        event.app.exit(result=result)

    return handler


def _discard_typeahead(input: Input) -> None:
    """Keys typed while the agent worked were not meant for a question that was not on screen
    yet: an early "1" or "y" must not approve a call."""
    clear_typeahead(input)
    if sys.platform != "win32" and sys.stdin.isatty():
        import termios

        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


def describe_cost(session: Session) -> str:
    """What /cost prints: the session's token counts and cost so far."""
    usage = session.usage
    lines = [
        f"Cost:    ${session.cost_usd:.4f}",
        f"Input:   {usage.input_tokens:,} tokens"
        f" (+{usage.cache_read_input_tokens:,} read from cache,"
        f" {usage.cache_creation_input_tokens:,} written to cache)",
        f"Output:  {usage.output_tokens:,} tokens",
    ]
    return "\n".join(lines)


def _print_banner(console: Console, workspace: Path) -> None:
    title = Text("✻ ", style="bold cyan")
    title.append(f"tether {__version__}", style="bold")
    console.print(title)
    console.print(Text(f"  workspace  {_shorten_home(workspace)}", style="dim"))
    console.print(Text(f"  {KEYS_HINT}", style="dim"))
    console.line()


def _shorten_home(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _history_path(env: Mapping[str, str] | None) -> Path:
    home = tether_home(env)
    home.mkdir(parents=True, exist_ok=True)
    return home / "history"


def _prompt_session(
    history: Path, startup: SessionStartup, input: Input | None, output: Output | None
) -> PromptSession[str]:
    def toolbar() -> FormattedText:
        ready = startup.ready
        if ready is None:  # the model is not known yet
            return FormattedText([("class:bottom-toolbar", f" {TOOLBAR_HINT}")])
        from tether.cli.render import format_tokens  # loaded with the session

        session = ready.session
        cost = f" · ${session.cost_usd:.4f}" if session.cost_usd else ""
        tokens = session.usage.context_tokens + session.usage.output_tokens
        used = f" · {format_tokens(tokens)} tokens" if tokens else ""
        return FormattedText(
            [("class:bottom-toolbar", f" {session.agent.model_id}{used}{cost} · {TOOLBAR_HINT}")]
        )

    def continuation(width: int, _line_number: int, _wrap_count: int) -> FormattedText:
        return FormattedText([("class:continuation", "·".rjust(width - 1) + " ")])

    return PromptSession(
        message=FormattedText([("class:prompt", "> ")]),
        multiline=True,
        key_bindings=_key_bindings(),
        history=FileHistory(str(history)),
        bottom_toolbar=toolbar,
        prompt_continuation=continuation,
        style=_STYLE,
        input=input,
        output=output,
    )


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("enter")
    def _submit(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.current_buffer.validate_and_handle()

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.current_buffer.insert_text("\n")

    @bindings.add("c-c")
    def _clear_or_exit(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

    return bindings


@contextmanager
def _sigint_calls(callback: Callable[[], None]) -> Generator[None]:
    """While the block runs, SIGINT (Ctrl+C anywhere but at the prompt, which reads it as a
    key and restores this handler after) calls `callback` on the event loop instead of
    raising KeyboardInterrupt."""
    loop = asyncio.get_running_loop()

    def on_sigint(_signum: int, _frame: FrameType | None) -> None:
        loop.call_soon_threadsafe(callback)

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:
        # Not the main thread: Ctrl+C keeps its usual meaning.
        previous = None
        installed = False
    else:
        installed = True
    try:
        yield
    finally:
        if installed:
            signal.signal(signal.SIGINT, _restorable(previous))


def _restorable(
    handler: Callable[[int, FrameType | None], Any] | int | signal.Handlers | None,
) -> Callable[[int, FrameType | None], Any] | int | signal.Handlers:
    return signal.default_int_handler if handler is None else handler


@contextmanager
def _no_echo(active: bool) -> Generator[None]:
    """Keep keys typed during a turn from being echoed into the output being drawn."""
    if not active or sys.platform == "win32" or not sys.stdin.isatty():
        yield
        return
    import termios

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    quiet = list(saved)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
