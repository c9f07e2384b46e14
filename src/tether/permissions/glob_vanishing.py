"""What a command may be under `nullglob`: each glob that matches nothing is dropped from its
words, so `find nomatch* -delete` runs `find -delete` (the whole directory) and `grep -r x
nomatch*` searches `.`. Each form is judged as a command of its own (shell_globbing tracks
whether nullglob may be on)."""

from __future__ import annotations

from dataclasses import replace

from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import ONE, STAR
from tether.permissions.wrappers import look_through

MAX_VANISHING = 3
"""The most glob words whose every subset is tried (2**3 - 1 forms); past them the command
is one whose words are not known."""
TOO_MANY_VANISHING = (
    f"more than {MAX_VANISHING} globs that nullglob may drop, so the words that run are not known"
)


def vanishing_forms(inv: Invocation) -> list[Invocation | None]:
    """`inv` with each non-empty subset of its glob words dropped, wrappers opened up again;
    [None] when it has more glob words than `MAX_VANISHING`."""
    globbed = [i for i, word in enumerate(inv.argv) if STAR in word or ONE in word]
    if len(globbed) > MAX_VANISHING:
        return [None]
    forms: list[Invocation | None] = []
    for mask in range(1, 1 << len(globbed)):
        dropped = {index for bit, index in enumerate(globbed) if mask >> bit & 1}
        argv = tuple(word for i, word in enumerate(inv.argv) if i not in dropped)
        form = look_through(argv, inv.assignments, inv.redirects, parse_code=parse_command, depth=0)
        forms.append(replace(form, late=inv.late))
    return forms
