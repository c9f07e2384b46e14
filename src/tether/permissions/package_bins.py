"""Programs package runners find in `node_modules/.bin`: npm puts every `node_modules/.bin`
from the package's directory up to the root first on the PATH of its scripts and of what
`npx`/`npm exec` run, and pnpm, yarn and bun do the same (which command lines run what, from
which directories: runner_argv.py). The file found there is what runs, judged as a file run by
its path (bash_judge_scripts `_run_file`), whatever rule allows the runner."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tether.permissions import steps

_MAX_UP = 64
_MAX_DIRS = 4096


def bin_file(name: str, start: Path) -> Path | None:
    """The `node_modules/.bin/NAME` a package runner started in `start` finds first."""
    if not name or "/" in name or name in (".", ".."):
        return None
    for place in (start, *list(start.parents)[:_MAX_UP]):
        found = place / "node_modules" / ".bin" / name
        if os.path.lexists(found):
            return found
    return None


def package_dirs(start: Path) -> list[Path] | None:
    """The directories below `start` (itself too) that hold a `node_modules/.bin`, where a
    runner told to run in packages of the workspace it does not name may run; None past
    `_MAX_DIRS` directories (`node_modules` and `.git` are not entered)."""
    found: list[Path] = []
    for count, (root, dirnames, _) in enumerate(os.walk(start), 1):
        steps.spend(1)
        if count > _MAX_DIRS:
            return None
        if "node_modules" in dirnames and os.path.isdir(os.path.join(root, "node_modules", ".bin")):
            found.append(Path(root))
        dirnames[:] = [d for d in dirnames if d not in ("node_modules", ".git")]
    return found


_BIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")
"""A command `npm exec` may find in a `node_modules/.bin` (no version, scope or place)."""
_PLACE = re.compile(r"[/.~]|file:")
"""A package named by where it is (`./pkg`, `/x/pkg`, `file:x`): judged as its files."""


def npm_exec_fetches(argv: tuple[str, ...], name: str, places: list[Path]) -> bool:
    """`npm exec NAME` (or `npm x`, `npx NAME`) given no `--package`: npm runs NAME from the first
    `node_modules/.bin` up from where it runs, and otherwise fetches the package NAME
    names from its registry (a version, a scope, `github:` too) and runs it, as
    `npx --package NAME NAME` does. False when NAME is found in each of `places`' runner
    PATHs, or names a place (judged as its files)."""
    if not argv or os.path.basename(argv[0]) not in ("npm", "npx") or _PLACE.match(name):
        return False
    return not _BIN_NAME.fullmatch(name) or any(bin_file(name, p) is None for p in places)
