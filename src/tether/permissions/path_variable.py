"""`export PATH="$PWD/.venv/bin:$PATH"`: directories put before the programs' usual ones.
Which programs they then shadow is not known (a workspace `bin/` may hold a `curl`), and a
value's variables are not known either, so such a line is asked, and the question stands in
every mode; but it is not the hard deny a PATH leading anywhere gets (bash_policy)."""

from __future__ import annotations

from collections.abc import Callable

from tether.permissions.shell_words import DYN, is_literal


def workspace_path_entries(value: str, inside: Callable[[str], bool]) -> bool:
    """Whether each entry of the PATH value `value` is the old value (a variable alone:
    `$PATH`), an absolute directory inside the workspace (`inside`), or one below a
    variable's value without climbing out (`$PWD/.venv/bin`)."""
    entries = value.split(":")
    if not value or len(entries) < 2 or not any(e == DYN for e in entries):
        return False  # the usual directories replaced: nothing found where it was
    for entry in entries:
        if entry == DYN:
            continue
        if entry.startswith(DYN + "/") and is_literal(entry[1:]):
            if ".." in entry.split("/"):
                return False
            continue
        # A relative entry is looked up from wherever the shell is later (`.` after a `cd`).
        if not is_literal(entry) or not entry.startswith("/") or not inside(entry):
            return False
    return True
