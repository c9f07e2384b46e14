"""Which git hook managers are in play in a project, so that their missing configuration names
are guarded there and nowhere else.

A hook manager's configuration (`lefthook-local.yml`, `.lintstagedrc`...) runs only when the
manager runs, and the manager runs from a git hook. The hooks are protected (`.git/hooks`, the
`core.hooksPath` directory, `.husky`: read-only, guarded while missing), so a command cannot
put a manager in play; it could only add configuration to one that is. Guarding every missing
name of every manager in every project costs a bind mount each on every command (some seventy
names; bwrap's time grows faster than the count of mounts: 670 mounts took 4 s a command), so
a manager's missing names are guarded where it is in play: a hook names its program, or one of
its names exists in the project. What exists is read-only either way.

simple-git-hooks reads its configuration only when it installs the hooks (from `package.json`,
the project's own code), never from a hook: its names are kept read-only where they exist.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from tether.project_files import HOOK_MANAGERS
from tether.sandbox.nofollow import read_regular_file

HOOK_PROGRAMS: dict[str, re.Pattern[bytes]] = {
    "lefthook": re.compile(rb"lefthook", re.IGNORECASE),
    "husky v4": re.compile(rb"husky", re.IGNORECASE),
    "CaptainHook": re.compile(rb"captainhook", re.IGNORECASE),
    "rusty-hook": re.compile(rb"rusty-hook", re.IGNORECASE),
    "GrumPHP": re.compile(rb"grumphp", re.IGNORECASE),
    "hk": re.compile(rb"\bhk\b"),
    "lint-staged": re.compile(rb"lint-staged", re.IGNORECASE),
    "overcommit": re.compile(rb"overcommit", re.IGNORECASE),
}
"""What a hook that runs the manager says: its program's name."""

MANAGER_OF: dict[str, str] = {
    name: manager for manager, names in HOOK_MANAGERS.items() for name in names
}
"""Each configuration name of the table, by its manager."""

_HOOK_BYTES = 65_536
_HOOK_FILES = 256
"""How much of a hook file is read, and how many hook files at most, per project."""


Lister = Callable[[str], "list[tuple[str, bool]] | None"]
"""A directory's entries (name, whether a directory), None when it cannot be listed:
`protected.listing`, which lists a directory again only when it changed."""


def managers_in_play(root: Path, hook_dirs: Iterable[Path], listing: Lister) -> frozenset[str]:
    """The managers whose names are guarded while missing in `root`: one of its names exists
        there, or a file in `hook_dirs` (git's hooks, `core.hooksPath`, `.husky`) names its
        program (a hook that is a link: its target too). Samples (`*.sample`) are skipped, and
    only regular files are read, never a fifo or a device."""
    found = {m for name, m in MANAGER_OF.items() if os.path.lexists(root / name)}
    texts = list(_hook_texts(hook_dirs, listing))
    for manager, program in HOOK_PROGRAMS.items():
        if manager not in found and any(program.search(text) for text in texts):
            found.add(manager)
    return frozenset(found)


def _hook_texts(hook_dirs: Iterable[Path], listing: Lister) -> Iterable[bytes]:
    read = 0
    for directory in dict.fromkeys(hook_dirs):
        entries = listing(os.fspath(directory))
        if entries is None:
            continue
        names = sorted(name for name, _ in entries if not name.endswith(".sample"))
        for name in names[: max(0, _HOOK_FILES - read)]:
            read += 1
            hook = Path(directory, name)
            if hook.is_symlink():  # a hook linked to the manager's program
                try:
                    yield os.fsencode(os.readlink(hook))
                except OSError:
                    continue
            text = read_regular_file(hook, _HOOK_BYTES)
            if text is not None:
                yield text
