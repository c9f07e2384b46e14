"""Whether a recursive read (`grep -r`, `rg`, `git add DIR`) reaches a file a Read rule covers,
judged from what is below the directory now (`PermissionContext.list_tree`) instead of from
what could be: `grep -rn TODO src` with `Read(**/.env)` denied and no `.env` in `src` reads
nothing the rule covers, and `git add src/app.py` stages one file.

What the listing cannot answer is left to the overlap test (asked): a tree too large, one
holding a symlink, a directory that cannot be listed. A file the same command makes first is
not seen, as with globs (README, Known limits); the files it writes are judged as writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from tether.permissions.rules import Rule

MAX_MATCHES = 4_000
"""Paths matched against the rules for one recursive read at most (each a few microseconds);
past them the tree is not looked at (asked, as without the listing)."""


def reaches_covered(
    below: tuple[str, ...] | None,
    forms: Sequence[Path],
    rules: Sequence[Rule],
    matches: Callable[[Rule, Sequence[Path]], bool],
) -> bool:
    """Whether some path below one of `forms` (the directory as written and resolved), as
    listed in `below`, matches one of `rules`; True when that is not known."""
    if below is None:
        return True
    for rule in rules:
        if rule.path is None:
            return True
        paths = _candidates(rule, forms, below)
        if paths is None:
            return True
        if paths and matches(rule, paths):
            return True
    return False


def _candidates(rule: Rule, forms: Sequence[Path], below: tuple[str, ...]) -> list[Path] | None:
    """The paths below that `rule` could match: those with one of the rule's literal segments
    among their components (`.env` for `**/.env`, `secrets` for `secrets/**`), all of them
    when it has none or the directory's own path holds one; None past `MAX_MATCHES`."""
    assert rule.path is not None
    literals = {s for s in rule.path.glob.split("/") if s and not any(c in s for c in "*?[\\")}
    found: list[Path] = []
    for form in forms:
        if not literals or not literals.isdisjoint(form.parts):
            picked = below
        else:
            picked = tuple(rel for rel in below if not literals.isdisjoint(rel.split("/")))
        if len(found) + len(picked) > MAX_MATCHES:
            return None
        found += [form / rel for rel in picked]
    return found
