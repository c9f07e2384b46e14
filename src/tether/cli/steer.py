"""Typing while the agent works: keys are read into a draft line shown under the spinner;
Enter queues it as a steering message, which the model reads at its next call. Ctrl+C (a key
here, since the terminal is in raw mode) or Esc interrupts the turn, as in Claude Code.

Every key typed meanwhile reaches the draft in the order typed, including those prompt_toolkit
kept back as type-ahead when an application ended (keys that came after the message prompt's
Enter, or after a permission answer): left there, they would be fed to the next prompt after
the draft it is pre-filled with, out of order. Keys that come after the turn's last event are
the next prompt's: they are handed on to it as type-ahead, an Esc the parser still holds back
with them, so a user who types ahead (Esc Esc, Shift+Tab, arrows) loses none of them; and the
terminal stays in raw mode between the two readers (`KeyboardHold`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
from prompt_toolkit.keys import Keys

_SUBMIT = {Keys.ControlM, Keys.ControlJ}
_ERASE = {Keys.ControlH, Keys.Backspace}
ESC_WAIT_S = 0.05
"""How long an Esc waits for the rest of an escape sequence (an arrow key...) before it is
taken as Esc alone: keys of one sequence arrive together."""


@dataclass
class DraftLine:
    """The line being typed during a turn, and what to do with it."""

    on_line: Callable[[str], None]
    """Called with a finished (non-blank) line when Enter is pressed."""
    on_change: Callable[[str], None]
    """Called with the draft after every change, to show it."""
    on_interrupt: Callable[[], None]
    on_eof: Callable[[], None]
    """Ctrl+D on an empty line: as at the prompt, the user wants to leave (after the turn)."""
    text: str = field(default="")
    on_mode: Callable[[], None] | None = None
    """Shift+Tab: the next permission mode, as at the prompt (the calls that follow use it)."""

    def add(self, text: str) -> None:
        """Text typed somewhere else that was meant for the draft (at a permission question
        that appeared while the user typed) joins it, after what it holds."""
        for key in text:
            self.feed(key, key)

    def send(self) -> None:
        """As Enter: queue the draft."""
        self.feed(Keys.ControlM, "\r")

    def feed(self, key: Keys | str, data: str) -> None:
        if key in _SUBMIT:
            line, self.text = self.text.strip(), ""
            if line:
                self.on_line(line)
        elif key in _ERASE:
            self.text = self.text[:-1]
        elif key == Keys.ControlU:
            self.text = ""
        elif key == Keys.ControlC:
            self.on_interrupt()
            return
        elif key == Keys.ControlD:
            if not self.text:
                self.on_eof()
            return
        elif key == Keys.BackTab:
            if self.on_mode is not None:
                self.on_mode()
            return
        elif key == Keys.BracketedPaste:
            self.text += data.replace("\r\n", "\n").replace("\r", "\n")
        elif len(key) == 1 and key.isprintable():
            self.text += key
        else:
            return  # arrows, function keys...: nothing to edit them with here
        self.on_change(self.text)


@dataclass
class TurnKeys:
    """What `typing_during_turn` gives its block: `finish()` once the turn's end is shown,
    after which every key is the next prompt's (handed on as it comes, not read as a draft's:
    Esc Esc then rewinds, it does not interrupt a turn that is over)."""

    finished: bool = False

    def finish(self) -> None:
        self.finished = True


@contextlib.contextmanager
def typing_during_turn(input: Input, draft: DraftLine) -> Generator[TurnKeys]:
    """Read keys into `draft` while the block runs. A question asked meanwhile reads its own
    keys (prompt_toolkit gives the input to the newest reader and gives it back after)."""

    loop = asyncio.get_running_loop()
    pending: list[asyncio.TimerHandle] = []
    keys = TurnKeys()

    def flush() -> None:
        # The parser holds an Esc back until it knows it is not the start of a sequence (an
        # arrow, Alt+Enter: those come with it and are read as such); alone, it interrupts.
        presses = input.flush_keys()
        if keys.finished:
            store_typeahead(input, presses)
            return
        for press in presses:
            if press.key == Keys.Escape:
                draft.on_interrupt()
            else:
                draft.feed(press.key, press.data)

    def read() -> None:
        if keys.finished:
            hand_on_typeahead(input)
            return
        take_typeahead(input, draft)
        for handle in pending:
            handle.cancel()
        pending[:] = [loop.call_later(ESC_WAIT_S, flush)]

    try:
        attached = input.attach(read)
        attached.__enter__()
    except EOFError:  # no terminal to read from (stdin is /dev/null)
        yield keys
        return
    try:
        with input.raw_mode():
            read()  # typed after the message was sent (an Esc among them interrupts)
            yield keys
            hand_on_typeahead(input)  # typed after the turn's last event
    finally:
        for handle in pending:
            handle.cancel()
        attached.__exit__(None, None, None)


def take_typeahead(input: Input, draft: DraftLine) -> None:
    """Feed `draft` every key typed and not read yet, oldest first: those kept back by the last
    application to end, then those waiting in the terminal. Called also before a question is
    shown, so that it takes none of the keys typed before it was on screen."""
    for press in get_typeahead(input):
        draft.feed(press.key, press.data)
    while presses := input.read_keys():
        for press in presses:
            draft.feed(press.key, press.data)


def hand_on_typeahead(input: Input) -> None:
    """Keep every key typed and not read yet for the next application (the message prompt),
    oldest first: those kept back by the last application to end, those waiting in the
    terminal, then what the parser holds back (an Esc that may begin a sequence), which no
    application would read until another key came."""
    presses = get_typeahead(input)
    while read := input.read_keys():
        presses.extend(read)
    presses.extend(input.flush_keys())
    store_typeahead(input, presses)


class KeyboardHold:
    """The terminal kept in raw mode across the gaps between the REPL's readers of the
    keyboard: from a turn's end to the next prompt, and from the prompt's Enter to the turn.
    Cooked there, the terminal would echo keys typed ahead over the output, and its line
    discipline would take Ctrl+C (a signal), Ctrl+D (end of file), Ctrl+S and Ctrl+Z for
    itself before the prompt could read them. Released before anything else runs (a command,
    a shell command, a wait for the session), where Ctrl+C is a signal again."""

    def __init__(self, input: Input) -> None:
        self._input = input
        self._raw: contextlib.AbstractContextManager[None] | None = None

    def hold(self) -> None:
        if self._raw is None:
            raw = self._input.raw_mode()  # it saves the terminal's mode now, to restore it
            raw.__enter__()
            self._raw = raw

    def release(self) -> None:
        raw, self._raw = self._raw, None
        if raw is not None:
            raw.__exit__(None, None, None)
