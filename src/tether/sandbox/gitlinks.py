"""The gitlinks of a repository's index: where git outside enters another repository.

`git status` runs a status in every directory its index holds a gitlink for (a submodule, or
an entry `git update-index --cacheinfo 160000,...` made), and that repository's config runs
there (`core.fsmonitor`: measured). The sweep's walk skips dependency directories
(`node_modules`, `.venv`...), so a repository made there with a gitlink to it would escape
it: the index says where to look whatever the directory's name.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

GITLINK_MODE = "160000"
_READ_INDEX = ("--no-optional-locks", "ls-files", "--stage", "-z")

Stamp = tuple[int, int, int, int]
Kept = dict[str, tuple[Stamp, tuple[str, ...]]]
"""Per index file: its stamp (inode, size, mtime, ctime) and the gitlink paths it held."""


def gitlink_paths(git_dir: Path, work_tree: Path, kept: Kept) -> list[Path]:
    """The directories under `work_tree` that `git_dir`'s index holds gitlinks for; read
    again only when the index changed. git reads the index alone here: its config may be a
    command's, so nothing it names runs (`core.fsmonitor` off, no system or global config)."""
    index = git_dir / "index"
    try:
        info = index.lstat()
    except OSError:
        return []
    stamp = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    known = kept.get(str(index))
    if known is None or known[0] != stamp:
        known = (stamp, _read(git_dir))
        kept[str(index)] = known
    return [work_tree / path for path in known[1]]


def _read(git_dir: Path) -> tuple[str, ...]:
    git = shutil.which("git")
    if git is None:
        return ()
    try:
        done = subprocess.run(
            [git, f"--git-dir={git_dir}", "-c", "core.fsmonitor=false", *_READ_INDEX],
            capture_output=True,
            timeout=10,
            check=False,
            env={"PATH": os.environ.get("PATH", ""), "GIT_CONFIG_NOSYSTEM": "1"},
            cwd="/",
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    found: list[str] = []
    for record in done.stdout.split(b"\0"):
        head, _, path = record.partition(b"\t")
        if head.startswith(GITLINK_MODE.encode() + b" ") and path:
            found.append(os.fsdecode(path))
    return tuple(found)
