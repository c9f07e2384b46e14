"""Reading from the user: the prompt where messages are typed, the answer to a permission
question (prompt_toolkit), and what the keyboard does while a turn runs (Ctrl+C interrupts,
typed keys are not echoed).

A permission question is printed by the renderer; a one-line application under it reads the
answer: 1 once, 2 always, 3 deny, 1 and 3 alone at the empty line, as in Claude Code, 2 (a
rule kept for good) followed by Enter, as are y and n; Esc denies, Tab denies
with a message for the model, Ctrl+C denies and interrupts the turn. At a question about an edit,
Shift+Tab allows it and turns accept-edits mode on for the session, as Claude Code's "Yes, allow
all edits during this session (shift+tab)".

A question can appear while the user is typing a message for the agent, so no key typed for
that message may answer it. Keys typed before the question was on screen never reach it (the
REPL gives them to the draft first); a digit answers only as the first key at the question, and
a word answer takes Enter after a line that is only the answer: "quickly" or "when you are
ready" typed on into the question answers nothing. A line that is not an answer is what the
user was typing: Enter keeps it in the draft for the prompt, unsent (sent beside the answer it
would read as part of it), and the question stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal

from prompt_toolkit import Application, PromptSession, search
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import is_searching
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.layout import BufferControl, FormattedTextControl, Layout, Window
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

if TYPE_CHECKING:
    from tether.cli.startup import SessionStartup
    from tether.cli.steer import DraftLine

STYLE = Style.from_dict(
    {
        "prompt": "bold ansicyan",
        "continuation": "ansibrightblack",
        "bottom-toolbar": "noreverse ansibrightblack",
        "question": "bold ansiyellow",
        "hint": "ansibrightblack",
    }
)

PermissionKey = Literal["allow_once", "allow_always", "accept_edits", "deny", "tell", "interrupt"]
"""What the answer to a permission question means; "tell" denies with a message;
"accept_edits" allows and turns accept-edits mode on."""

PERMISSION_ANSWERS: Mapping[PermissionKey, tuple[str, ...]] = {
    "allow_once": ("1", "y", "yes"),
    "allow_always": ("2",),
    "deny": ("3", "n", "no"),
}
"""The lines (any case) that answer a permission question when Enter follows them (1 and 3
answer alone, as the first key at the question; 2 keeps a rule for good, so takes Enter)."""

PERMISSION_KEYS: Mapping[PermissionKey, tuple[str, ...]] = {
    "deny": ("escape",),
    "tell": ("tab",),
    "interrupt": ("c-c", "<sigint>"),
}
"""The keys that answer at once: none of them is a key of ordinary text."""

ESCAPE_TIMEOUT_S = 0.1
"""How long a lone Esc waits to be told from the start of an escape sequence (an arrow key):
short, so that Esc denies at once; a sequence split later than this is still read as a denial."""


# -- the permission question ------------------------------------------------------------------


async def read_permission_answer(
    input: Input | None,
    output: Output | None,
    *,
    can_remember: bool,
    draft: DraftLine | None = None,
    can_accept_edits: bool = False,
) -> tuple[PermissionKey, str | None]:
    """Read the answer to a permission question (printed above by the renderer): its meaning
    (see `PERMISSION_ANSWERS` and `PERMISSION_KEYS`; "allow_always" only when `can_remember`),
    and for "tell" the message typed for the model (None when left empty). Text typed at the
    question that is no answer goes to `draft`, the message being typed for the agent.
    `can_accept_edits`: the call is an edit, so Shift+Tab answers "accept_edits"."""
    answers: dict[str, PermissionKey] = {
        word: meaning
        for meaning, words in PERMISSION_ANSWERS.items()
        if meaning != "allow_always" or can_remember
        for word in words
    }
    choices = "1, 2 or 3 (2 saves a rule: then Enter)" if can_remember else "1 or 3"
    keys: dict[PermissionKey, tuple[str, ...]] = dict(PERMISSION_KEYS)
    if can_accept_edits:
        keys["accept_edits"] = ("s-tab",)
    hint = f"press {choices}: "
    key = await _read_answer_line(input, output, answers, hint, draft, keys)
    if key != "tell":
        return key, None
    return await _read_denial_message(input, output)


async def _read_answer_line(
    input: Input | None,
    output: Output | None,
    answers: Mapping[str, PermissionKey],
    hint: str,
    draft: DraftLine | None,
    keys: Mapping[PermissionKey, tuple[str, ...]] = PERMISSION_KEYS,
) -> PermissionKey:
    """The one-line application under a question. Enter after an answer answers; Enter after
    other text keeps that text in the draft for the prompt, unsent (the question stays); the
    keys of `keys` (`PERMISSION_KEYS`) answer at once, and what the line held joins the draft
    (not an answer left without Enter)."""
    line = Buffer(multiline=False)
    bindings = KeyBindings()
    lines_kept: list[str] = []

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        typed = line.text
        line.reset()  # the answer is no text for the draft; other text goes to it here
        meaning = answers.get(typed.strip().lower())
        if meaning is not None:
            event.app.exit(result=meaning)
        elif typed.strip() and draft is not None:
            # Kept for the prompt, not sent along with the answer. The first line goes on
            # the word being typed when the question came; a line after another one typed
            # here is a new word ("first", "second": "first second", not glued).
            draft.add(f" {typed}" if lines_kept else typed)
            lines_kept.append(typed)

    @bindings.add("c-d")
    def _deny_on_empty(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        if not line.text:
            event.app.exit(result="deny")

    for meaning, names in keys.items():
        for name in names:
            bindings.add(name, eager=True)(exit_with(meaning))
    for digit in (d for d in answers if d.isdigit() and answers[d] != "allow_always"):
        bindings.add(digit)(_digit(line, answers[digit], digit))
    prefix = FormattedText([("class:question", "  → "), ("class:hint", hint)])
    field = BufferControl(line, input_processors=[BeforeInput(prefix)])
    try:
        return await one_line(field, bindings, input, output).run_async()
    except EOFError:
        return "interrupt"  # the input gone: nobody is there to approve anything
    finally:  # an answer left without Enter ("2" then Esc) is no text for the message
        if draft is not None and line.text and line.text.strip().lower() not in answers:
            draft.add(line.text)


def _digit(line: Buffer, meaning: PermissionKey, digit: str) -> Callable[[KeyPressEvent], None]:
    """A digit answers as the first key at the question (as Claude Code's); typed after
    other text, it is text. Not 2: a rule kept for good takes Enter."""

    def press(event: KeyPressEvent) -> None:
        if line.text:
            line.insert_text(digit)
        else:
            event.app.exit(result=meaning)

    return press


async def _read_denial_message(
    input: Input | None, output: Output | None
) -> tuple[PermissionKey, str | None]:
    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    def _without_message(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.app.exit(result="")

    reader: PromptSession[str] = PromptSession(
        message=FormattedText([("class:question", "  ✎ Tell the model why: ")]),
        key_bindings=bindings,
        style=STYLE,
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


def one_line(
    control: BufferControl | FormattedTextControl,
    bindings: KeyBindings,
    input: Input | None,
    output: Output | None,
    *,
    height: int = 1,
) -> Application[Any]:
    """A one-line application (or `height` lines) under a question, erased when it ends; Esc
    acts at once."""
    app: Application[Any] = Application(
        layout=Layout(Window(control, height=height)),
        key_bindings=bindings,
        style=STYLE,
        input=input,
        output=output,
        erase_when_done=True,
    )
    app.ttimeoutlen = ESCAPE_TIMEOUT_S
    return app


def exit_with(result: object) -> Callable[[KeyPressEvent], None]:
    def handler(event: KeyPressEvent) -> None:
        event.app.exit(result=result)

    return handler


# -- the message prompt -----------------------------------------------------------------------


REWIND_KEYS = "\x00rewind"
"""What the message prompt returns for Esc Esc on an empty line (no typing makes it)."""


def message_prompt(
    history: Path,
    startup: SessionStartup,
    input: Input | None,
    output: Output | None,
    mode_changed: Sequence[Callable[[], None]] = (),
) -> PromptSession[str]:
    """The prompt where messages are typed: Enter sends, Alt+Enter breaks the line, Ctrl+C
    clears it (and on an empty line raises KeyboardInterrupt), Esc Esc clears it (and on an
    empty line returns `REWIND_KEYS`), Ctrl+R searches the history (Enter puts the match in
    the line, Esc or Ctrl+G leaves the line as it was), Shift+Tab cycles the permission mode,
    Ctrl+V pastes an image from the clipboard (`tether.cli.clipboard_image`), `@` completes
    paths, `/` completes commands; the footer under it names the mode, the model and the
    context the conversation fills (`tether.cli.prompt_footer`)."""
    from prompt_toolkit.completion import merge_completers

    from tether.cli.clipboard_image import paste_keys
    from tether.cli.prompt_footer import add_footer, mode_keys
    from tether.cli.repl_help import slash_names
    from tether.cli.user_context import MentionCompleter, ResourceNames, SlashCompleter

    def mention_base() -> Path:
        ready = startup.ready
        return ready.session.agent.tool_context.shell_cwd if ready is not None else Path.cwd()

    def mention_hidden(path: Path) -> bool:
        """Whether `path` is left out of `@`'s completions: the session's Read deny rules
        cover it (as Glob leaves it out), or they are not known yet."""
        ready = startup.ready
        if ready is None:
            return True
        denied = ready.session.agent.tool_context.read_denied
        return denied is not None and denied(path)

    def continuation(width: int, _line_number: int, _wrap_count: int) -> FormattedText:
        return FormattedText([("class:continuation", "·".rjust(width - 1) + " ")])

    prompt: PromptSession[str] = PromptSession(
        message=FormattedText([("class:prompt", "> ")]),
        multiline=True,
        key_bindings=merge_key_bindings(
            [_message_keys(), mode_keys(startup, mode_changed), paste_keys(startup)]
        ),
        history=FileHistory(str(history)),
        prompt_continuation=continuation,
        completer=merge_completers(
            [
                SlashCompleter(lambda: slash_names(startup.ready)),
                MentionCompleter(mention_base, ResourceNames(startup), mention_hidden),
            ]
        ),
        complete_while_typing=True,
        style=STYLE,
        input=input,
        output=output,
    )
    add_footer(prompt, startup)
    return prompt


def _message_keys() -> KeyBindings:
    bindings = KeyBindings()
    typing = ~is_searching  # Ctrl+R's search keeps its own Enter (the match into the line)

    @bindings.add("enter", filter=typing)
    def _submit(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.current_buffer.validate_and_handle()

    @bindings.add("enter", filter=is_searching)
    def _take_match(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        search.accept_search()  # the match into the line, the cursor after it, to edit
        line = event.app.current_buffer
        line.cursor_position = len(line.text)

    @bindings.add("escape", filter=is_searching, eager=True)
    def _leave_search(_event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        search.stop_search()  # as Ctrl+G: the line as it was (readline's Esc would take it)

    @bindings.add("escape", "enter", filter=typing)
    def _newline(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.current_buffer.insert_text("\n")

    @bindings.add("escape", "escape", filter=typing)
    def _rewind(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(result=REWIND_KEYS)

    @bindings.add("c-c", filter=typing)
    def _clear_or_exit(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

    return bindings


# -- keys while a turn runs ---------------------------------------------------------------------


@contextmanager
def sigint_calls(callback: Callable[[], None]) -> Generator[None]:
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
def no_echo(active: bool) -> Generator[None]:
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
        with contextlib.suppress(termios.error):  # a terminal gone (hung up): nothing to restore
            termios.tcsetattr(fd, termios.TCSANOW, saved)
