"""The line under the message prompt: the permission mode (Shift+Tab cycles it), the model, the
context the conversation fills now and what it cost.

prompt_toolkit's own bottom toolbar is drawn only once the terminal has answered a cursor
position request, which many terminals (and every pseudo-terminal without an emulator) never
do; this line is part of the prompt's layout, so it is drawn wherever the prompt is, and it is
gone from the screen once the message is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.filters import is_done
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, HSplit, Window

from tether.cli.repl_commands import MODE_LABELS, cycle_mode, permission_mode

if TYPE_CHECKING:
    from tether.cli.startup import SessionStartup

FOOTER_HINT = "alt+enter new line · /help"
MODE_HINT = "(shift+tab to cycle)"


def footer_text(startup: SessionStartup) -> FormattedText:
    """What the footer says: the hints alone until the session is built."""
    ready = startup.ready
    if ready is None:  # the model is not known yet
        return FormattedText([("class:bottom-toolbar", f" {FOOTER_HINT}")])
    from tether.cli.render import format_tokens  # loaded with the session

    session = ready.session
    mode = permission_mode(session)
    parts = [f"{MODE_LABELS.get(mode, mode)} {MODE_HINT}", session.agent.model_id]
    if session.context_tokens:  # the window now, not the sum of every request
        parts.append(f"{format_tokens(session.context_tokens)} tokens")
    if session.cost_usd:
        parts.append(f"${session.cost_usd:.4f}")
    parts.append(FOOTER_HINT)
    return FormattedText([("class:bottom-toolbar", " " + " · ".join(parts))])


def add_footer(prompt: PromptSession[str], startup: SessionStartup) -> None:
    """Draw `footer_text` under the prompt's input while it is being typed."""
    footer = ConditionalContainer(
        Window(
            FormattedTextControl(lambda: footer_text(startup)),
            style="class:bottom-toolbar",
            height=1,
            dont_extend_height=True,
        ),
        filter=~is_done,
    )
    container = prompt.app.layout.container
    assert isinstance(container, HSplit)  # the prompt's layout: input, toolbars, one below another
    container.children.append(footer)


def mode_keys(startup: SessionStartup, changed: Sequence[Callable[[], None]] = ()) -> KeyBindings:
    """Shift+Tab at the prompt: the session's next permission mode (nothing before it is
    built), then each of `changed` is called (the status line runs again)."""
    bindings = KeyBindings()

    @bindings.add("s-tab")
    def _cycle(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        ready = startup.ready
        if ready is not None:
            cycle_mode(ready.session, bypass_allowed=ready.bypass_allowed)
            for call in changed:
                call()
            event.app.invalidate()

    return bindings
