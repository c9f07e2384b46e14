"""Where the project is, for a tether started in some directory: the root of the repository
that holds it, as Claude Code's documentation describes a project (`.claude/` and `CLAUDE.md`
"in the repository", instructions read "from the repository root down to the working
directory").

Started in `repo/src/app`, the project is `repo`: its `.claude/settings.json` (model, deny
rules, hooks), `CLAUDE.local.md`, memory file, sessions and trust answer are the project's, and
its permission rules, sandbox and file tools work in the whole repository; Bash starts in
`repo/src/app`. The settings, instructions and skills of the directories between the root and
the starting directory apply too, deeper ones over shallower ones (a package of a monorepo
keeps its own `.claude/settings.json`).

A repository whose root is the home directory or above it (dotfiles kept in git) is not taken
as the project of a directory below the home: every folder of the user's would otherwise
share one project. Without a repository, the starting directory is the project.
"""

from __future__ import annotations

from pathlib import Path


def project_root(start: Path, *, user_home: Path) -> Path:
    """The project of a tether started in `start` (see the module's docstring)."""
    real = start.expanduser().resolve()
    home = user_home.expanduser().resolve()
    for directory in (real, *real.parents):
        if directory != real and (directory == home or directory in home.parents):
            break
        if (directory / ".git").exists():
            return directory
    return real


def project_directories(root: Path, start: Path) -> list[Path]:
    """`root`, then each directory below it down to `start` (just `root` when `start` is
    not below it)."""
    real = start.expanduser().resolve()
    if not real.is_relative_to(root) or real == root:
        return [root]
    below = [real, *(d for d in real.parents if d.is_relative_to(root) and d != root)]
    return [root, *reversed(below)]
