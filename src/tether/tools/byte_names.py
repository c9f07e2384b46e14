"""File names that are not UTF-8, as the model names them back.

A name holding bytes that are not UTF-8 (`bad\\xff.txt`) reaches the model with U+FFFD in their
place (`bad\ufffd.txt`): text sent to the model must be Unicode. The model then names the file
that way, and no file has that name. `matching_name` finds, component by component, the one
entry of each directory that is shown so, and tells apart the case where several are.
"""

from __future__ import annotations

import os
from pathlib import Path

from tether.protocol import ToolError

REPLACEMENT = "\ufffd"


def shown_name(name: str) -> str:
    """A name (str, with surrogate escapes for its undecodable bytes) as the model sees it."""
    return os.fsencode(name).decode("utf-8", errors="replace")


def matching_name(path: Path, given: str) -> Path:
    """`path` itself when it exists or holds no U+FFFD; else the same path with each name
    holding U+FFFD that names nothing replaced by the one entry of its directory shown that
    way. Raises ToolError when several entries are shown the same way."""
    if REPLACEMENT not in str(path) or os.path.lexists(path):
        return path
    found = Path(path.anchor)
    for name in path.parts[1:]:
        candidate = found / name
        if REPLACEMENT in name and not os.path.lexists(candidate):
            try:
                entries = os.listdir(found)
            except OSError:
                return path  # the tool says what is wrong with the path as given
            same = sorted(e for e in entries if e != name and shown_name(e) == name)
            if len(same) > 1:
                names = ", ".join(repr(os.fsencode(e))[2:-1] for e in same)
                raise ToolError(
                    f"{given} could name {len(same)} files whose names are not UTF-8 ({names}): "
                    "they show the same; rename them (with Bash) to tell them apart."
                )
            if same:
                candidate = found / same[0]
        found = candidate
    return found
