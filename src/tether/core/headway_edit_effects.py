"""Whether a run shows the effect of a number the model just wrote (`headway.Headway`): a fix
loop that tunes a figure.

A fix-edit-run loop that changes only a number (a bound, a constant, an off-by-one) leaves the
file in a content that is not new with its numbers masked, and its test says the same thing with
another figure ("expected 3 got 7"): both look like a counter, and an honest loop of eighty
edits was stopped at the 33rd reply. What tells it from a counter written and shown back is the
run: a program that reads the file shows the figure written, in words of its own, without naming
the file; `cat state.json` after writing it names it, and is the file shown back.

A figure counts once per file in the turn: writing back a value tried before is not new (an A/B
flip of a constant), and each write is answered by the next call that runs at most.
"""

from __future__ import annotations

import json

from tether.core.headway_look import DIGITS, CallLook

_WRITTEN = (("content", None), ("new_string", "old_string"), ("new_source", None))
"""Per write tool's input: the text written, and the text it replaces (numbers in both are not
new)."""


class EditEffects:
    """The figures the model's writes put in files, and those a run is still to show."""

    __slots__ = ("_pending", "_written")

    def __init__(self) -> None:
        self._written: dict[str, set[str]] = {}
        """Per path, every figure the model's writes put in it in the turn."""
        self._pending: dict[str, set[str]] = {}
        """Per path, the figures the latest write put in it for the first time."""

    def wrote(self, look: CallLook) -> None:
        """Note the figures a write tool's call (that succeeded) put in the files it names."""
        figures = _figures_written(look.call.input)
        for path in look.paths():
            known = self._written.setdefault(path, set())
            new = figures - known
            known |= figures
            if new:
                self._pending[path] = new
            else:
                self._pending.pop(path, None)

    def shown(self, look: CallLook) -> bool:
        """Whether a call that is not a write shows a figure a write put in a file just before,
        the file not named by it (nor the figure given in its input); the writes noted so far
        are answered by it either way."""
        if not self._pending:
            return False
        pending, self._pending = self._pending, {}
        if any(path in pending for path in look.paths()):
            return False  # the file shown back, not a run of what reads it
        given = set(DIGITS.findall(json.dumps(look.call.input, default=str)))
        figures = set[str]().union(*pending.values()) - given
        return any(figure in figures for figure in DIGITS.findall(look.content))


def _figures_written(given: dict[str, object]) -> set[str]:
    """The numbers a write tool's input puts in a file (an Edit's: those its old text lacks)."""
    figures: set[str] = set()
    edits = given.get("edits")
    parts: list[dict[str, object]] = [given]
    if isinstance(edits, list):
        parts += [e for e in edits if isinstance(e, dict)]  # type: ignore[misc]
    for part in parts:
        for written, replaced in _WRITTEN:
            text = part.get(written)
            if not isinstance(text, str):
                continue
            old = part.get(replaced) if replaced is not None else None
            figures |= set(DIGITS.findall(text)) - set(DIGITS.findall(str(old or "")))
    return figures
