"""The project's `.tether/` holds a person's files (settings, agents, skills, hooks: theirs
to commit) beside tether's runtime state (the task and mailbox store, teammates' logs and
event logs, task worktrees). As Claude Code keeps its local files out of git's view, tether
writes a `.tether/.gitignore` naming its runtime files (and itself) when it first puts
runtime state there, so `git status` after a team run shows only what a person would commit.
One a person wrote is left as it is."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

FOLDER = ".tether"

IGNORED = """\
# Written by tether: its runtime state here, out of git's view. Settings, agents, skills
# and hooks are not listed: they show, to be committed as usual.
/.gitignore
/tasks.db
/tasks.db-*
/teams/
/worktrees/
"""


def make_runtime_dir(directory: Path) -> None:
    """Make `directory` (and its parents) for runtime state; when it is in a `.tether`
    folder, that folder's `.gitignore` is written first if it has none."""
    folder = next((p for p in (directory, *directory.parents) if p.name == FOLDER), None)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            fd = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(IGNORED)
    directory.mkdir(parents=True, exist_ok=True)
