"""Which lines of the files a call names its output shows, by line number: what lets a shell
command paging a file (`sed -n`, `grep -n`, `head`, `cat -n`) show new lines as Read does
(`headway.Headway`); and which lines a search pattern matches in the files it lists."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator

from tether.core.headway_look import State

LINED_BYTES = 4 << 20
"""Files up to this size are split into lines to find what a call showed of them; larger ones
are not (a call naming them is headway only by what else it shows)."""

INDEXED_FILES = 16
"""How many files' lines are kept indexed, the most recently used: a turn that names hundreds
of files would otherwise hold every one's lines (up to `LINED_BYTES` each) until it ends; one
evicted is read again when a call names it next."""

_PREFIX = re.compile(r"^(?:\s*[0-9]+\t|(?:[^\s:]+:)?[0-9]+[:-]|[^\s:]+:)")
"""What a line's text may be written after: `cat -n`'s number, `grep -n`'s `12:` or `path:12:`,
`grep -H`'s `path:`."""


class FileLines:
    """The lines of the files calls named, by text, one content per path (the latest)."""

    __slots__ = ("_indexed",)

    def __init__(self) -> None:
        self._indexed: dict[str, tuple[State, dict[str, list[int]]]] = {}

    def places(self, path: str, state: State, output: str) -> Iterator[tuple[str, int]]:
        """The lines of `path` (holding `state`) whose text `output` shows, each as its path
        and number: every place of a text that the file holds more than once."""
        lines = self._lines(path, state)
        if not lines:
            return
        for shown in output.splitlines():
            if not shown.strip():
                continue  # a blank line is in every file: it shows nothing of one
            numbers = lines.get(shown)
            if numbers is None:
                match = _PREFIX.match(shown)
                numbers = lines.get(shown[match.end() :]) if match else None
            for number in numbers or ():
                yield path, number

    def matching(self, path: str, state: State, pattern: re.Pattern[str]) -> Iterator[int]:
        """The numbers of the lines of `path` (holding `state`) that `pattern` matches."""
        for text, numbers in self._lines(path, state).items():
            if pattern.search(text):
                yield from numbers

    def _lines(self, path: str, state: State) -> dict[str, list[int]]:
        known = self._indexed.pop(path, None)
        if known is None or known[0] != state:
            known = (state, _read_lines(path) if state is not None else {})
        self._indexed[path] = known  # the most recently used last
        while len(self._indexed) > INDEXED_FILES:
            del self._indexed[next(iter(self._indexed))]
        return known[1]


def _read_lines(path: str) -> dict[str, list[int]]:
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > LINED_BYTES:
            return {}
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return {}
    lines: dict[str, list[int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            lines.setdefault(line, []).append(number)
    return lines
