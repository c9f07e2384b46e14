"""The one-line question of the REPL's pickers (`/resume`, `/memory`, the rewind list and its
menu): read by a prompt of its own, so the message prompt keeps its `> ` and its history keeps
messages only; Esc, Ctrl+C and Ctrl+D leave it unanswered, so no picker can take the user's
next message for its answer."""

from __future__ import annotations

from prompt_toolkit import PromptSession
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.patch_stdout import patch_stdout

from tether.cli.ask import ESCAPE_TIMEOUT_S


async def ask_picker(prompt: PromptSession[str], question: str) -> str | None:
    """The answer to `question`, stripped ("" for Enter alone); None when the user left it
    (Esc, Ctrl+C, Ctrl+D)."""
    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    def _leave(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.app.exit(exception=EOFError())

    picker: PromptSession[str] = PromptSession(
        input=prompt.input, output=prompt.output, key_bindings=bindings
    )
    # A lone Esc is told from an arrow key's sequence at once, as the permission question's is.
    picker.app.ttimeoutlen = ESCAPE_TIMEOUT_S
    with patch_stdout(raw=True):
        try:
            return (await picker.prompt_async(question)).strip()
        except (KeyboardInterrupt, EOFError):
            return None
