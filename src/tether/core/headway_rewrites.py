"""Whether a file a shell command changed, already named in the turn, holds something new
(`headway.Headway`): a `sed -i` of a fix, a build's output are; the loop's own output is not.

A file that one and the same command changes every time (a stamp, a log the command tees,
`date > now.txt`) is headway only `REWRITTEN_AT` times; one holding only the command's own words
(`echo <word> > f`) never; and a file that grew is judged by what was added to it: a line of the
command's own words appended (`echo <word> >> notes.txt && tail -1 notes.txt`, a file of ten
re-read after `echo '# touched' >>` each time) leaves it in a content it never had, for ever, and
is no work.
"""

from __future__ import annotations

import os
import stat

from tether.core.headway_file_lines import LINED_BYTES
from tether.core.headway_look import VARYING, CallLook, content_hash
from tether.core.headway_text import SUBSTANTIVE, masked_words

REWRITTEN_AT = 3
"""How many times a file that one and the same command rewrites is headway in a turn (a
stamp, a log the command tees, the output of `date > now.txt`: the loop's own output)."""


class Rewrites:
    """The files commands changed in the turn, as `fresh` judges them."""

    __slots__ = ("_rewritten", "_texts", "_unechoed")

    def __init__(self) -> None:
        self._rewritten: dict[tuple[str, str], int] = {}
        """How often a path was found changed after the same command (signature)."""
        self._unechoed: dict[str, set[bytes]] = {}
        """Per path a command changed, its contents with the command's own words masked: a
        file that holds only what the command was given (`echo <word> > f`) is not new."""
        self._texts: dict[str, tuple[int, bytes]] = {}
        """Per path a command changed, the length and hash of its text when last found: what
        was added to it, when it grew, is what is judged."""

    def fresh(self, path: str, look: CallLook) -> bool:
        """Whether `path`, which `look`'s command left in a content it had not had in the
        turn, holds something new beyond the command's own output (noted either way)."""
        count = self._rewritten.get((path, look.key), 0) + 1
        self._rewritten[(path, look.key)] = count
        return count <= REWRITTEN_AT and self._new_beyond_input(path, look)

    def _new_beyond_input(self, path: str, look: CallLook) -> bool:
        """Whether a file a command changed holds, its numbers and the command's own words
        masked, what it did not hold before in the turn (`echo <word> > f` does not), and,
        when it grew, whether what was added holds a word of its own."""
        text = small_text(path)
        if text is None:
            return True
        asked = look.input_words()
        before = self._texts.get(path)
        self._texts[path] = (len(text), content_hash(text))
        if before is not None and _appended(text, before):
            added = masked_words(VARYING.sub("#", text[before[0] :]), asked)
            if SUBSTANTIVE.search(added) is None:
                return False
        masked = content_hash(masked_words(VARYING.sub("#", text), asked))
        held = self._unechoed.setdefault(path, set())
        if masked in held:
            return False
        held.add(masked)
        return True


def _appended(text: str, before: tuple[int, bytes]) -> bool:
    """Whether `text` is the text `before` (its length and hash) with more after it."""
    return len(text) > before[0] and content_hash(text[: before[0]]) == before[1]


def small_text(path: str) -> str | None:
    """A regular file's text when it is small (`LINED_BYTES`) and UTF-8; None otherwise. A
    FIFO or a device a command names is opened without waiting and never read: reading one
    would wait for a writer (the session hung on `read line < gate.fifo`)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = f.read(LINED_BYTES + 1)
        if len(data) > LINED_BYTES:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
