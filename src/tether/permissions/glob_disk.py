"""What a glob in a Bash word matches on disk when the call is judged (bash expands it a
moment later, when the command runs): each path component holding a glob (`*`, `?`,
`[...]`) is matched against its directory's entries, so a match that is a symlink is judged
by where it leads, as the literal path would be (`docs/?` with `docs/k -> ../secrets/key`,
`src/u?/secrets/key` with `src/up -> ..`). One judgement for every metacharacter: their
spelling is matched against the rules as before (access.py); this adds what is there.

Listing a directory costs a step per entry (steps.py), matching a name its glob product; a
directory with more entries than `context.MAX_LISTED` is not known, so neither is what the
glob matches.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.permissions import steps
from tether.permissions.file_targets import GlobPath
from tether.permissions.paths import ANY, Tokens, expand_nodot, globs_overlap

Resolve = Callable[[Path], Path | None]
Listing = Callable[[Path], tuple[str, ...] | None]


def disk_matches(target: GlobPath, real: Resolve, listing: Listing) -> list[Path] | None:
    """The paths (as written below the pattern's fixed directory, symlinks not followed) the
    pattern matches now; None when a directory on the way is too large to list."""
    if target.listed_from is None:
        return []
    paths = [target.listed_from]
    globbed = False
    for segment in _segments(target.rest):
        if ANY in segment:
            return []  # text known only at run time: where it leads is judged by its spelling
        literal = all(isinstance(t, str) for t in segment)
        if literal and not globbed:
            paths = [p / "".join(str(t) for t in segment) for p in paths]
            continue
        # Past a glob, bash keeps only what exists: a literal name must be there too.
        forms = [segment] if literal else expand_nodot(segment)
        found: list[Path] = []
        for path in paths:
            where = real(path)
            names = listing(where) if where is not None else ()
            if names is None:
                return None
            steps.spend(1 + len(names))
            found += [path / n for n in names if any(globs_overlap(f, tuple(n)) for f in forms)]
        paths, globbed = found, True
        if not paths:
            break
    return paths


def _segments(tokens: Tokens) -> list[Tokens]:
    segments: list[Tokens] = []
    start = 0
    for i, token in enumerate(tokens):
        if token == "/":
            segments.append(tokens[start:i])
            start = i + 1
    segments.append(tokens[start:])
    return [s for s in segments if s and s != (".",)]
