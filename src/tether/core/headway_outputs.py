"""Which whole outputs a turn's calls showed (`headway.Headway`): a call that shows exactly
what the same call showed before is nothing new, whatever the line memory has forgotten.

The line memory (`headway_text.SeenLines`) is bounded, and a turn that reads a mid-size
codebase round and round (40 files of 30 KB) shows more lines than it holds: by the second
round the first is forgotten, and every file read again looked new. One digest per output
(16 bytes, not one key per line) remembers far more, so the turn's whole memory (kept across
its compactions) knows a file read again unchanged for what it is.
"""

from __future__ import annotations

import re

from tether.core.headway_look import CallLook, content_hash

KEPT_OUTPUTS = 1 << 16
"""How many outputs' digests are held (about 2 MB with the set's overhead); past it the oldest
are forgotten first."""

OWN_LOG = re.compile(r"[^\s;]*/bash-\w+\.log")
"""Where tether saved a long output it cut (`shell_output`): a new file name each time, which
makes no output new."""


class ShownOutputs:
    """The digests of the outputs the turn's calls showed, each with the call's signature."""

    __slots__ = ("_digests",)

    def __init__(self) -> None:
        self._digests: dict[bytes, None] = {}
        """An ordered set: the oldest first, forgotten first."""

    def clear(self) -> None:
        self._digests.clear()

    def shown_before(self, look: CallLook) -> bool:
        """Whether the same call (by its signature) showed exactly this output before in the
        turn; it is noted either way."""
        shown = OWN_LOG.sub("#", look.content)
        digest = content_hash(f"{look.call.name}\0{look.key}\0{shown}")
        if digest in self._digests:
            return True
        if len(self._digests) >= KEPT_OUTPUTS:
            del self._digests[next(iter(self._digests))]
        self._digests[digest] = None
        return False
