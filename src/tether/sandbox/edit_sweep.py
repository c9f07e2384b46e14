"""New files that the `Edit` deny rules name, made by a command: moved aside when it ends.

What an `Edit` deny rule names is bound read-only when a command starts (`mounts.edit_denied`),
but only what exists then: a mount needs a path, and a placeholder for every name a pattern
could match (`Edit(**/*.pem)`, `Edit(*.TXT)`, `Edit(newdir/**)`) cannot be made. So after the
command, the same walk (`denied_reads.DeniedScan`, its listings kept while unchanged) looks
again: a match that was not there when the command started is the command's, and is renamed to
`<name>.tether-disabled` (a directory whole), which no rule of that shape names; nothing is
lost, and the model is told which rule named it. A rule's matches that the user or a tool made
while no command ran were there at the next command's start, and are bound read-only instead.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from tether.sandbox.denied_reads import Denied, DeniedScan
from tether.sandbox.git_sweep import move_aside
from tether.slotted import Slotted

NAMED = 5


class EditSweep(Slotted):
    __slots__ = ("before", "scan")
    scan: DeniedScan | None
    before: set[str]
    """What the rules named when the last command started (bound read-only to it)."""

    def __init__(self, scan: DeniedScan | None = None, before: set[str] | None = None) -> None:
        self.scan = scan
        self.before = set() if before is None else before

    def started(self, scan: DeniedScan, found: Iterable[Denied]) -> None:
        self.scan = scan
        self.before = {os.fspath(d.path) for d in found}

    def sweep(self, roots: tuple[Path, ...]) -> str | None:
        """Move aside what the rules name under `roots` that was not there when the command
        started; the note for the model, if anything was."""
        if self.scan is None:
            return None
        found = self.scan.find(roots, lambda _: False)
        moved: list[str] = []
        named: list[str] = []
        for denied in sorted(found.paths, key=lambda d: len(d.path.parts)):
            path = os.fspath(denied.path)
            if path in self.before or any(path.startswith(m + os.sep) for m in moved):
                continue
            with contextlib.suppress(OSError):
                target = move_aside(denied.path)
                if target is None:
                    continue  # gone already: nothing left to move
                moved.append(path)
                named.append(f"{path} ({denied.rule}; now {target.name})")
        if not moved:
            return None
        more = f" and {len(moved) - NAMED} more" if len(moved) > NAMED else ""
        return (
            "files the Edit deny rules name were made by the command and moved aside: "
            f"{', '.join(named[:NAMED])}{more}"
        )
