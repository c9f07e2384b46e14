"""svnmucc's actions read as svnmucc reads them, one after another, each with its own number of
words (`put SRC-FILE URL`, `propsetf NAME FILE URL`, `cp REV SRC DST`...): the local files they
put in the repository are reads. An action known only as it runs (`svnmucc $A .env URL`), one
svnmucc does not have, or actions read from a file (`-X FILE`, `--extra-args FILE`: its lines
are more arguments, not seen here) are not understood."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tether.permissions.shell_words import is_literal, readable
from tether.slotted import Slotted

_ACTIONS: Mapping[str, int] = {
    "cp": 3,
    "mkdir": 1,
    "mv": 2,
    "rm": 1,
    "put": 2,
    "propset": 3,
    "propsetf": 3,
    "propdel": 2,
}
"""Each action and how many words it takes."""
_FILE_AT: Mapping[str, int] = {"put": 0, "propsetf": 1}
"""Where the local file is among an action's words (`put SRC-FILE URL`, `propsetf NAME FILE
URL`); `-` is svnmucc's input."""


class SvnmuccActions(Slotted):
    """The files svnmucc's actions read, and why they are not understood, if they are not."""

    __slots__ = ("reads", "unseen")
    reads: tuple[str, ...]
    unseen: tuple[str, ...]

    def __init__(self, reads: tuple[str, ...], unseen: tuple[str, ...]) -> None:
        self.reads = reads
        self.unseen = unseen


def svnmucc_actions(operands: Sequence[str], extra_args: Sequence[str]) -> SvnmuccActions:
    """`operands`: svnmucc's words that are not options; `extra_args`: its `-X` files."""
    reads: list[str] = []
    unseen = [f"svnmucc takes more actions from {_source(f)}, not seen" for f in extra_args]
    at = 0
    while at < len(operands):
        action = operands[at]
        count = _ACTIONS.get(action) if is_literal(action) else None
        if count is None:
            unseen.append(f"svnmucc action `{readable(action)}` is not one tether knows")
            break
        words = operands[at + 1 : at + 1 + count]
        place = _FILE_AT.get(action)
        if place is not None and place < len(words) and words[place] != "-":
            reads.append(words[place])
        at += 1 + count
    return SvnmuccActions(tuple(reads), tuple(unseen))


def _source(file: str) -> str:
    return "its input" if file == "-" else readable(file)
