"""Programs package runners find in `node_modules/.bin`: npm puts every `node_modules/.bin`
from the package's directory up to the root first on the PATH of its scripts and of what
`npx`/`npm exec` run, and pnpm, yarn and bun do the same (which command lines run what, from
which directories: runner_argv.py). The file found there is what runs, judged as a file run by
its path (bash_judge_scripts `_run_file`), whatever rule allows the runner."""

from __future__ import annotations

import os
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
