"""Questions asked while the user may be typing: a yes/no question (the trust question, the
session's questions before its first turn), and the keys typed before a question is shown.

A question is answered only by keys pressed after it is on screen, and a decision kept for
good takes Enter: y (yes, 1) or n (no, 3) alone on the line, then Enter. Whatever else is
typed at it is what the user was typing for the prompt: Enter with such a line keeps the line
for the prompt (the question stays), as do the keys typed before the question was shown.
Esc, Ctrl+C or a closed input answer nothing: "not now", kept nowhere.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from contextlib import contextmanager

from prompt_toolkit.application import get_app_session
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.layout import BufferControl
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output

from tether.cli.ask import exit_with, one_line

YES_NO_ANSWERS: Mapping[str, bool] = {
    "y": True,
    "yes": True,
    "1": True,
    "n": False,
    "no": False,
    "3": False,
}
"""The lines (any case) that answer a yes/no question when Enter follows them."""

YES_NO_HINT = "y or n, then Enter (Esc: not now): "


async def read_yes_no(
    input: Input | None, output: Output | None, kept: list[str] | None = None
) -> bool | None:
    """Yes or no, each taking Enter after it; None for Esc, Ctrl+C or a closed input (not
    now). A line typed that is no answer goes to `kept` on Enter (the question stays); what
    the line holds when the question ends goes there too."""
    line = Buffer(multiline=False)
    bindings = KeyBindings()

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        typed = line.text
        meaning = YES_NO_ANSWERS.get(typed.strip().lower())
        line.reset()
        if meaning is not None:
            event.app.exit(result=meaning)
        elif typed.strip() and kept is not None:
            kept.append(typed)

    for key in ("escape", "c-c", "<sigint>"):
        bindings.add(key, eager=True)(exit_with(None))

    @bindings.add("c-d")
    def _gone(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        if not line.text:
            event.app.exit(result=None)

    prefix = FormattedText([("class:question", "  → "), ("class:hint", YES_NO_HINT)])
    field = BufferControl(line, input_processors=[BeforeInput(prefix)])
    try:
        return await one_line(field, bindings, input, output).run_async()
    except EOFError:
        return None
    finally:
        if line.text.strip() and kept is not None:
            kept.append(line.text)


@contextmanager
def typed_before(input: Input | None, *, terminal: bool) -> Generator[None]:
    """Around a question on the `terminal` (not a pipe, whose keys all wait at once): the keys
    typed before it was shown are kept from it, and handed on after it, oldest first, to the
    next application that reads the keyboard (the message prompt)."""
    if not terminal:
        yield
        return
    source = input or get_app_session().input
    with source.raw_mode():  # a line not ended yet is readable too
        early: list[KeyPress] = [*get_typeahead(source), *source.read_keys()]
    try:
        yield
    finally:
        store_typeahead(source, [*early, *get_typeahead(source)])
