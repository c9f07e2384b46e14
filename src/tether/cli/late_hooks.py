"""What hooks that went on in the background say once they end (`tether.hooks.late`), wired to
the session: their context joins the model's next request; an `asyncRewake` hook's exit 2 is
steered into the running turn, and a front end that is idle starts a turn with it (`wakers`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the hooks' code is loaded only when a hook is configured
    from tether.core.session import Session
    from tether.hooks.late import LateOutput


def late_output(session: Session) -> LateOutput | None:
    """The session's background hooks' words (None without hooks)."""
    gate = session.agent.gate
    return gate.hooks.late if gate is not None and gate.hooks is not None else None


def attach_late_hooks(session: Session) -> None:
    """Deliver what background hooks say: context with the next request, a rewake message as
    steering (read at the next call of a running turn; else the next turn's prompt, which a
    front end's waker, added after this one, starts)."""
    late = late_output(session)
    if late is None:
        return
    from tether.core.lifecycle import reminder  # the REPL imports this module before its prompt
    from tether.protocol import TextBlock

    session.agent.inputs.append(lambda: [TextBlock(text=reminder(t)) for t in late.take()])
    late.wakers.append(lambda text: session.steer(reminder(text)))
