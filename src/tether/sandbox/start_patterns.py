"""The paths the start-up file sweep judges (`start_sweep.py`), by pattern: the permission
engine's table of files that start programs later (`tether.project_files`), less what package
managers write and hosted CI definitions, and the parts of workspace plugins."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from tether.project_files import PROJECT_SELF_MODIFYING
from tether.project_start_files import CI_DEFINITIONS
from tether.sandbox.git_sweep import DISABLED
from tether.sandbox.plugin_parts import PLUGIN_PARTS, declared
from tether.sandbox.protected import WHOLE_DIRECTORIES
from tether.tool_start_files import INSTALLED

_INSTALLERS = frozenset(
    {"site-packages", "dist-packages", "bin", "Scripts", "pyvenv.cfg"} | INSTALLED
)
"""Entries of the table in what `pip install`, `python -m venv` and other package managers
write (a virtualenv's `.pth` files, its programs, `node_modules/.bin`, a pixi environment):
the engine's only, not swept (an editable install's `.pth` would be moved aside, an install's
programs too, while the rest of the tree they sit in is code the next command runs anyway);
virtualenvs' and dependencies' directories are not walked either."""

_RUN_HERE = (".lando", ".ddev", "devfile", "netlify", "vercel", "now.json", ".gitpod")
"""CI-like definitions a local tool runs (`lando start`, `ddev start`, `netlify dev`...)."""
HOSTED_CI = frozenset(
    path for path, _ in CI_DEFINITIONS if not path.lstrip("/").startswith(_RUN_HERE)
)
"""Hosted CI definitions: run at the next push, on the service's machines, never on this one
(the permission engine still asks before a write): not swept, so a clone or a checkout of a
branch keeps its `.github/workflows`."""


def _patterns() -> tuple[tuple[tuple[str, ...], bool], ...]:
    found: list[tuple[tuple[str, ...], bool]] = []
    for entry in PROJECT_SELF_MODIFYING:
        root_only = entry.path.startswith("/")
        parts = tuple(entry.path.lstrip("/").split("/"))
        if entry.sandbox == "apart" or entry.path == ".hg" or entry.path in HOSTED_CI:
            continue
        if not _INSTALLERS.isdisjoint(parts):
            continue
        found.append((parts, root_only))
    return tuple(dict.fromkeys(found))


PATTERNS = _patterns()
"""The table's paths, as segments (a segment may be a glob), and whether the path is one at
a project's root only (written `/name` in the table)."""
_Pattern = tuple[tuple[str, ...], bool]
_LITERAL_FIRST: dict[str, list[_Pattern]] = {}
_GLOB_FIRST: list[tuple[re.Pattern[str], _Pattern]] = []
for _pattern in PATTERNS:
    if any(c in _pattern[0][0] for c in "*?["):
        _GLOB_FIRST.append((re.compile(fnmatch.translate(_pattern[0][0])), _pattern))
    else:
        _LITERAL_FIRST.setdefault(_pattern[0][0], []).append(_pattern)


def swept_path(relative: str) -> bool:
    """Whether the sweep judges what is at `relative` (below a project root) whole: a path of
    the table, or a directory guarded whole (`.cargo`, `.config`) that holds only its files."""
    for parts, root_only in PATTERNS:
        joined = "/".join(parts)
        if fnmatch.fnmatch(relative, joined):
            return True
        if not root_only and fnmatch.fnmatch(relative, "*/" + joined):
            return True
    return os.path.basename(relative) in WHOLE_DIRECTORIES


def is_disabled(name: str) -> bool:
    return DISABLED in name


def matches(directory: Path, names: set[str], *, root: bool) -> list[str]:
    """The paths below `directory` (relative; "." for the directory itself) that the table
    names (its root-only ones where `directory` is a root) or that are a plugin's, present
    now. A directory's listing changes when an entry is added or removed, not when one
    deeper is: multi-segment paths are looked up each time their first segment is there."""
    found: list[str] = []
    for name in names:
        if is_disabled(name):
            continue
        candidates = list(_LITERAL_FIRST.get(name, ()))
        candidates += [pattern for rx, pattern in _GLOB_FIRST if rx.match(name)]
        for parts, root_only in candidates:
            if root or not root_only:
                found.append(name if len(parts) == 1 else "/".join((name, *parts[1:])))
    if ".claude-plugin" in names:
        # A plugin below a project is its code whole (its hooks run its scripts); a project
        # that is itself a plugin, its parts only (the rest is the project's own code).
        found += [name for name in names if name in PLUGIN_PARTS] if root else ["."]
        found += declared(directory)
    return list(dict.fromkeys(found))
