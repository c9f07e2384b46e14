"""Text from outside (a model, a tool, an endpoint, a file) made safe to print on a terminal.

A terminal obeys the control characters it is sent: an endpoint's error message or a command's
output holding `ESC[2J` would clear the screen, `ESC]0;...` retitle the window, a carriage
return overwrite the line before it, and bidirectional overrides make text read other than it
is. Every front end passes such text through `terminal_safe` (or an event through
`terminal_safe_event`) before it prints it: each control character is shown as its escape
(`\\x1b`, `\\u202e`), so what was sent stays visible and nothing acts on the terminal.
Newlines and tabs are kept; a Windows line end is read as a newline.

It imports nothing at load time (the REPL's prompt and headless mode use it before anything
heavy is loaded).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar, cast

from tether.slotted import slot_fields

if TYPE_CHECKING:
    from tether.protocol.record import Record

_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
_UNSAFE_POINTS = (
    *(c for c in range(0x20) if chr(c) not in "\t\n"),
    *range(0x7F, 0xA0),
    *_BIDI,
)
_ESCAPES = {c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in _UNSAFE_POINTS}
_UNSAFE = re.compile("[" + "".join(re.escape(chr(c)) for c in _UNSAFE_POINTS) + "]")

T = TypeVar("T")


def terminal_safe(text: str) -> str:
    """`text` with every character that acts on a terminal shown as its escape instead."""
    if _UNSAFE.search(text) is None:  # the common case: one scan, no copy
        return text
    return text.replace("\r\n", "\n").translate(_ESCAPES)


def terminal_line(text: str) -> str:
    """`text` for one line of a listing: `terminal_safe`, and line breaks shown as `\\n`, so
    text from elsewhere (a task's subject an agent wrote) cannot draw rows of its own."""
    return terminal_safe(text).replace("\n", "\\n")


def terminal_safe_event(value: T) -> T:
    """An event (or any protocol record, dict, list or string inside one) with every string
    in it made `terminal_safe`; the same object when nothing needed it."""
    # Imported here: the REPL loads this module before its prompt, the protocol after it.
    from tether.protocol.record import Record

    return _safe(value, Record)  # type: ignore[return-value]


def _safe(value: object, record: type[Record]) -> object:
    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, record):
        changed = {
            name: safe
            for name in slot_fields(type(value))
            if (safe := _safe(original := getattr(value, name), record)) is not original
        }
        return value.model_copy(update=changed) if changed else value
    if isinstance(value, dict):
        pairs = list(cast(dict[object, object], value).items())
        safe_pairs = [(_safe(k, record), _safe(v, record)) for k, v in pairs]
        unchanged = all(
            sk is k and sv is v for (sk, sv), (k, v) in zip(safe_pairs, pairs, strict=True)
        )
        return value if unchanged else dict(safe_pairs)
    if isinstance(value, list | tuple):
        items = list(cast(Sequence[object], value))
        safe_items = [_safe(v, record) for v in items]
        if all(s is o for s, o in zip(safe_items, items, strict=True)):
            return value
        return safe_items if isinstance(value, list) else tuple(safe_items)
    return value


def waiting_notice(waited_s: float, limit_s: float, *, pings_only: bool) -> str:
    """What every front end says while the model endpoint gives nothing of an answer:
    'waiting for the model (20s without a byte; retried at 180s)', or, when it sends only
    keep-alives, 'waiting for the model (pings only, 20s; retried at 180s)'."""
    waited = (
        f"pings only, {seconds(waited_s)}" if pings_only else f"{seconds(waited_s)} without a byte"
    )
    return f"waiting for the model ({waited}; retried at {seconds(limit_s)})"


def seconds(value: float) -> str:
    """15s, 180s; 0.4s for the short waits of tests and impatient settings."""
    return f"{value:.0f}s" if value >= 10 else f"{value:.1f}s"
