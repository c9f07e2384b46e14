"""What the stream-json front end says on stderr, where the SDK passes it to its user: warnings,
the events no line carries (errors, retries), and messages that were never delivered."""

from __future__ import annotations

import sys

from tether.cli.terminal_text import terminal_safe
from tether.protocol import ErrorOccurred, Event, ModelRetry, Notice


def warn(message: str) -> None:
    print(f"tether: {terminal_safe(message)}", file=sys.stderr, flush=True)


def show(event: Event) -> None:
    """A warning, an error or a retry, told on stderr (other events are not)."""
    if isinstance(event, Notice) and event.level == "warning":
        warn(event.message)
    elif isinstance(event, ErrorOccurred):
        warn(event.message.splitlines()[0] if event.message else "error")
    elif isinstance(event, ModelRetry):
        warn(f"model call failed ({event.reason}); retry {event.attempt}")


def not_delivered(text: str, images: int, reason: str) -> None:
    """A message no turn will read, named so that the user's words do not vanish."""
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 200 else shown[:199] + "…"
    extra = f" (and {images} image{'' if images == 1 else 's'})" if images else ""
    warn(f"a message was not delivered, as {reason}: {shown!r}{extra}")
