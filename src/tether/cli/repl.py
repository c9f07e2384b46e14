"""The interactive prompt: read a message (prompt_toolkit), run the turn, show its events (rich).

While a turn runs no prompt is on screen, so the renderer owns the terminal; Ctrl+C is then a
signal that interrupts the turn and keeps the session. At the prompt Ctrl+C is a key: it clears
the line, and on an empty line, pressed twice, exits.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import signal
import sys
from collections.abc import Callable, Generator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from types import FrameType
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import patch_stdout
from prompt_toolkit.styles import Style
from rich.console import Console
from rich.text import Text

from tether import __version__
from tether.cli.render import EventRenderer, format_tokens
from tether.cli.setup import RunOptions, build_session
from tether.config.settings import tether_home
from tether.core.session import Session
from tether.protocol import ConfigError, UserInput

EXIT_HINT = "Press Ctrl+C again or Ctrl+D to exit."
KEYS_HINT = "enter send · alt+enter new line · /help · ctrl+d exit"
TOOLBAR_HINT = "alt+enter new line · /help"

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
    }
)


class _Next(Enum):
    PROMPT = "prompt"
    EXIT = "exit"


async def run_repl(
    opts: RunOptions,
    *,
    initial_prompt: str | None = None,
    input: Input | None = None,
    output: Output | None = None,
    console: Console | None = None,
) -> int:
    """Run the interactive session until the user leaves; 0 then, 2 when the configuration is
    unusable (no API key...). `input`, `output` and `console` default to the terminal; tests pass
    a pipe input, a dummy output and a console writing to a buffer."""
    console = console or Console()
    try:
        session = build_session(opts)
    except ConfigError as e:
        console.print(Text(f"tether: {e}", style="red"))
        return 2
    started = session.started()
    renderer = EventRenderer(console, verbose=opts.verbose, workspace=Path(started.cwd))
    _print_banner(console, started.model, Path(started.cwd))
    warming = _warm_model(session, console)
    prompt = _prompt_session(_history_path(opts), session, input, output)
    repl = _Repl(session, renderer, console, prompt, watch_terminal=input is None)
    try:
        with _sigint_calls(repl.interrupt_turn):
            return await repl.run(initial_prompt)
    finally:
        if warming is not None:
            await asyncio.wait([warming])
        await close_model(session)


class _Repl:
    def __init__(
        self,
        session: Session,
        renderer: EventRenderer,
        console: Console,
        prompt: PromptSession[str],
        *,
        watch_terminal: bool,
    ) -> None:
        self.session = session
        self.renderer = renderer
        self.console = console
        self.prompt = prompt
        self.watch_terminal = watch_terminal

    async def run(self, initial_prompt: str | None) -> int:
        if initial_prompt and initial_prompt.strip():
            self.prompt.history.append_string(initial_prompt)
            self.console.print(Text(f"> {initial_prompt}", style="bold"))
            await self.run_turn(initial_prompt)
        interrupted_once = False
        while True:
            try:
                with patch_stdout(raw=True):
                    text = await self.prompt.prompt_async()
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
                if self.run_command(text) is _Next.EXIT:
                    return 0
                continue
            await self.run_turn(text)

    async def run_turn(self, text: str) -> None:
        """Run one turn as a task, so that Ctrl+C (SIGINT) can interrupt it meanwhile."""
        self.console.line()
        task = asyncio.create_task(self._show_turn(text))
        with _no_echo(self.watch_terminal):
            await task

    def interrupt_turn(self) -> None:
        """Ctrl+C outside the prompt: stop the running turn; the session stays."""
        if self.session.busy:
            self.session.interrupt()

    async def _show_turn(self, text: str) -> None:
        try:
            async for event in self.session.submit(UserInput(text=text)):
                self.renderer.render(event)
        finally:
            self.renderer.close()
        self.console.line()

    def run_command(self, line: str) -> _Next:
        """A slash command; the rest of the line is ignored by all of today's commands."""
        name = line.split(maxsplit=1)[0].lower()
        if name in ("/exit", "/quit"):
            return _Next.EXIT
        if name == "/help":
            self.console.print(HELP, markup=False, highlight=False)
        elif name == "/cost":
            self.console.print(describe_cost(self.session), markup=False, highlight=False)
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


def _print_banner(console: Console, model: str, workspace: Path) -> None:
    title = Text("✻ ", style="bold cyan")
    title.append(f"tether {__version__}", style="bold")
    console.print(title)
    console.print(Text(f"  model      {model}", style="dim"))
    console.print(Text(f"  workspace  {_shorten_home(workspace)}", style="dim"))
    console.print(Text(f"  {KEYS_HINT}", style="dim"))
    console.line()


def _shorten_home(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _history_path(opts: RunOptions) -> Path:
    home = tether_home(opts.env)
    home.mkdir(parents=True, exist_ok=True)
    return home / "history"


def _prompt_session(
    history: Path, session: Session, input: Input | None, output: Output | None
) -> PromptSession[str]:
    def toolbar() -> FormattedText:
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


def _warm_model(session: Session, console: Console) -> asyncio.Task[Any] | None:
    """Import the model's SDK in a thread while the user types its first message."""
    warm = getattr(session.agent.model, "warm", None)
    if not callable(warm):
        return None
    task = asyncio.create_task(asyncio.to_thread(warm))

    def report(done: asyncio.Task[Any]) -> None:
        if done.cancelled():
            return
        error = done.exception()
        if error is not None:
            console.print(Text(f"(could not prepare the model client: {error})", style="dim"))

    task.add_done_callback(report)
    return task


async def close_model(session: Session) -> None:
    """Close the model's HTTP client, when it has one, before the event loop ends."""
    close = getattr(session.agent.model, "aclose", None)
    if callable(close):
        closing = close()
        if inspect.isawaitable(closing):
            await closing


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
