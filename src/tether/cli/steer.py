"""Typing while the agent works: keys are read into a draft line shown under the spinner;
Enter queues it as a steering message, which the model reads at its next call. Ctrl+C (a key
here, since the terminal is in raw mode) interrupts the turn."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

from prompt_toolkit.input import Input
from prompt_toolkit.keys import Keys

_SUBMIT = {Keys.ControlM, Keys.ControlJ}
_ERASE = {Keys.ControlH, Keys.Backspace}


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
        elif key == Keys.BracketedPaste:
            self.text += data.replace("\r\n", "\n").replace("\r", "\n")
        elif len(key) == 1 and key.isprintable():
            self.text += key
        else:
            return  # arrows, function keys...: nothing to edit them with here
        self.on_change(self.text)


@contextlib.contextmanager
def typing_during_turn(input: Input, draft: DraftLine) -> Generator[None]:
    """Read keys into `draft` while the block runs. A question asked meanwhile reads its own
    keys (prompt_toolkit gives the input to the newest reader and gives it back after)."""

    def read() -> None:
        for press in input.read_keys():
            draft.feed(press.key, press.data)

    try:
        attached = input.attach(read)
        attached.__enter__()
    except EOFError:  # no terminal to read from (stdin is /dev/null)
        yield
        return
    try:
        with input.raw_mode():
            yield
    finally:
        attached.__exit__(None, None, None)
