"""A model that makes the same failing call again and again: told, then stopped.

A model can get stuck answering an error with the very call that caused it (a denied command
asked again, an Edit whose `old_string` is not in the file, a path that does not exist), and
nothing but the turn limit ends that, which `-p` has none of by default: the turn would run,
and cost, for ever. Claude Code has no guard of its own here (its turn limit is the only
bound); Gemini CLI stops a request after 5 identical calls in a row. tether counts replies
whose calls all failed and were, as a set, the previous reply's calls again (same tool, same
input): from the `NOTE_AT`th such reply in a row, the results carry a reminder that the call
will fail again; at the `STOP_AT`th the turn ends with an error that says which call. Any
reply with a new call, or a call that succeeded, starts the count again. A call is its
tool's name and its input as canonical JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tether.protocol import HarnessError, ToolResultBlock, ToolUseBlock

NOTE_AT = 3
"""From this many identical failing replies in a row, each one's results say so."""

STOP_AT = 8
"""At this many, the turn ends (`HarnessError`): the model is not called again."""


class RepeatedFailures:
    """The count, over one turn's replies, of the same calls failing again."""

    __slots__ = ("_count", "_last")

    def __init__(self) -> None:
        self._last: frozenset[str] | None = None
        self._count = 0

    def saw(self, calls: Sequence[ToolUseBlock], results: Sequence[ToolResultBlock]) -> str | None:
        """Count one reply's calls with their results: a reminder for the model once they
        repeat `NOTE_AT` times, None otherwise; `HarnessError` at `STOP_AT`."""
        failed = bool(results) and all(r.is_error for r in results)
        keys = frozenset(_key(call) for call in calls)
        if not failed:
            self._last, self._count = None, 0
            return None
        self._count = self._count + 1 if keys == self._last else 1
        self._last = keys
        if self._count < NOTE_AT:
            return None
        named = _named(calls)
        if self._count >= STOP_AT:
            raise HarnessError(
                f"stopped: the model made the same failing call {self._count} times in a row "
                f"({named}), each failing the same way; the session is kept: say what to do "
                "differently and go on"
            )
        return (
            f"The same call ({named}) has now failed {self._count} times in a row with the same "
            "input, and it will fail again. Do not repeat it: read the error, then change the "
            "input or the approach, or stop and say what is in the way. "
            f"After {STOP_AT} the turn is ended."
        )


def _key(call: ToolUseBlock) -> str:
    return call.name + "\0" + json.dumps(call.input, sort_keys=True, ensure_ascii=True)


def _named(calls: Sequence[ToolUseBlock]) -> str:
    names = sorted({call.name for call in calls})
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
