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
    folder, that folder's `.gitignore` is written first if it has none. With one a person
    wrote, tether's list goes where git reads it too and no person edits it: a runtime
    directory's own `.gitignore` of `*`, and the repository's `info/exclude` for the
    files beside them (the task store)."""
    folder = next((p for p in (directory, *directory.parents) if p.name == FOLDER), None)
    if folder is None:
        directory.mkdir(parents=True, exist_ok=True)
        return
    folder.mkdir(parents=True, exist_ok=True)
    if not _write_new(folder / ".gitignore", IGNORED) and not _ours(folder / ".gitignore"):
        if directory != folder:
            top = folder / directory.relative_to(folder).parts[0]
            top.mkdir(parents=True, exist_ok=True)
            _write_new(top / ".gitignore", "*\n")
        else:
            _exclude_store_files(folder)
    directory.mkdir(parents=True, exist_ok=True)


def _write_new(path: Path, text: str) -> bool:
    """Write `path` unless it exists; whether it was written."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return True


def _ours(path: Path) -> bool:
    with contextlib.suppress(OSError):
        return path.read_text(encoding="utf-8").startswith(IGNORED.splitlines()[0])
    return False


STORE_FILES = ("tasks.db", "tasks.db-*")


def _exclude_store_files(folder: Path) -> None:
    """The task store's files in the `info/exclude` of the repository whose top holds
    `folder` (none found: nothing written)."""
    common = _git_common_dir(folder.parent / ".git")
    if common is None:
        return
    exclude = common / "info" / "exclude"
    lines = [f"/{FOLDER}/{name}" for name in STORE_FILES]
    with contextlib.suppress(OSError):
        have = exclude.read_text(encoding="utf-8").splitlines() if exclude.exists() else []
        missing = [line for line in lines if line not in have]
        if missing:
            exclude.parent.mkdir(parents=True, exist_ok=True)
            start = "\n" if have and not exclude.read_text(encoding="utf-8").endswith("\n") else ""
            with exclude.open("a", encoding="utf-8") as out:
                out.write(start + "".join(f"{line}\n" for line in missing))


def _git_common_dir(dot_git: Path) -> Path | None:
    """The repository's common git directory from its `.git` (a directory, or a worktree's
    `gitdir:` file)."""
    if dot_git.is_dir():
        return dot_git
    with contextlib.suppress(OSError, ValueError):
        text = dot_git.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            gitdir = (dot_git.parent / text.removeprefix("gitdir:").strip()).resolve()
            common = gitdir / "commondir"
            if common.is_file():
                return (gitdir / common.read_text(encoding="utf-8").strip()).resolve()
            return gitdir
    return None
