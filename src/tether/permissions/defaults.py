"""Built-in policy that applies with no settings at all, as data."""

from __future__ import annotations

import fnmatch
import functools
from pathlib import Path

from tether.home_files import HOME_SELF_MODIFYING
from tether.permissions.paths import Tokens, glob_tokens, relative_below
from tether.plugin_places import plugin_place
from tether.project_files import PROJECT_SELF_MODIFYING

TASK_BOARD_TOOLS = frozenset({"TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "TaskNext"})
"""The team's task tools (`tether.teams.tools`): they touch only the team's board."""

TEAM_TOOLS = frozenset({"SendMessage", "TeamCreate", "TeamDelete"})
"""The teammates' tools (`tether.teams`): they touch only the team's mailboxes and roster."""

SESSION_TOOLS = frozenset(
    {
        "TodoWrite",
        "Skill",
        "BashOutput",
        "KillShell",
        "Task",
        "ExitPlanMode",
        *TASK_BOARD_TOOLS,
        *TEAM_TOOLS,
    }
)
"""Tools that only touch the session's own state or its team's board (or, for Task, start a
subagent whose calls are checked one by one): allowed without asking, in plan mode too."""

READABLE_DEVICES = frozenset(
    {"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/tty"}
)
WRITABLE_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
DEVICE_DIRS: tuple[str, ...] = ()
"""Directories of streams, none: `/dev/fd/N` and `/proc/self/fd/N` are whatever the process
has open, a file too (`exec 3<.env`), so they are unknown paths (access.py), asked."""

SELF_MODIFYING: tuple[tuple[str, str], ...] = tuple(
    (entry.path, entry.why) for entry in PROJECT_SELF_MODIFYING if entry.engine
)
"""Paths below a project (the workspace, an added directory) whose contents grant permissions
or start programs at a later session or command, found at any depth (a nested project's
`.claude`, a submodule's `.git`, a virtualenv's `site-packages/*.pth`): the table the sandbox
keeps read-only too (`tether.project_files`, which says what is left out and why). Writing
them asks in every mode but bypassPermissions, whatever allow rules or acceptEdits say."""


def _is_pattern(segment: str) -> bool:
    return "*" in segment or "?" in segment


SELF_MODIFYING_TOKENS: tuple[tuple[Tokens, bool], ...] = tuple(
    (glob_tokens(entry.path.lstrip("/")), entry.path.startswith("/"))
    for entry in PROJECT_SELF_MODIFYING
    if entry.engine and entry.globbed
)
"""The entries as glob tokens, each with whether it is found at a project's root only, for
paths known only as patterns (`access.py`): not those a glob of every project reaches
(`sitecustomize.py` by `src/*.py`, `ProjectFile.globbed`)."""

_Entry = tuple[tuple[str, ...], str]
_PROJECT_BY_FIRST: dict[str, list[_Entry]] = {}
_GLOB_FIRST: list[_Entry] = []
"""Entries whose first segment is a pattern (`mise.*.toml`), tried at every segment."""
_ROOT_ONLY: list[_Entry] = []
"""Entries found at a project's root only (written `/*.props`)."""
for _entry, _why in SELF_MODIFYING:
    _parts = tuple(_entry.casefold().split("/"))
    if _entry.startswith("/"):
        _ROOT_ONLY.append((_parts[1:], _why))
    elif _is_pattern(_parts[0]):
        _GLOB_FIRST.append((_parts, _why))
    else:
        _PROJECT_BY_FIRST.setdefault(_parts[0], []).append((_parts, _why))


def is_device(path: str, *, write: bool) -> bool:
    allowed = WRITABLE_DEVICES if write else READABLE_DEVICES
    return path in allowed or path.startswith(DEVICE_DIRS)


def self_modifying(
    path: Path,
    roots: tuple[Path, ...],
    *,
    home: Path | None = None,
    tether_home: Path | None = None,
) -> str | None:
    """What `path` configures, when writing it changes what a later session allows or runs
    (see `SELF_MODIFYING`); None otherwise. Project entries are judged below the workspace root
    holding the path, so that a workspace inside some `.tether` directory is not all
    protected; outside every root, anywhere in the path. The table's part is a pure function
    of its arguments, kept for the session (every write a decision judges asks it, of the
    same few paths); a virtualenv's programs and a plugin's directory (`tether.plugin_places`)
    are found by a look at the disk."""
    venv = _virtualenv_program(path)
    if venv is not None:
        return venv
    text = path.as_posix()
    for root in roots:
        plugin = plugin_place(text, root.as_posix())
        if plugin is not None:
            return plugin
    return _self_modifying(
        path.as_posix(),
        tuple(root.as_posix() for root in roots),
        home.as_posix() if home is not None else None,
        tether_home.as_posix() if tether_home is not None else None,
    )


@functools.lru_cache(maxsize=4096)
def _self_modifying(
    text: str, roots: tuple[str, ...], home: str | None, tether_home: str | None
) -> str | None:
    root = _holding_root(text, roots)
    below = relative_below(text, root) if root is not None else None
    # Folded: on a case-insensitive file system (macOS, Windows, an ext4 directory with
    # casefolding) `.VIMRC` is `.vimrc`, and a directory may fold where its parent does not;
    # folding always costs one casefold, where probing would cost a look at each directory,
    # and on a case-sensitive one a folded name (`.VIMRC`) is only asked about.
    parts = (
        tuple(text.casefold().split("/")[1:])
        if below is None
        else tuple(below.casefold().split("/"))
        if below
        else ()
    )
    for i, part in enumerate(parts):
        for entry, why in (*_PROJECT_BY_FIRST.get(part, ()), *_GLOB_FIRST):
            if _segments_match(entry, parts[i : i + len(entry)]):
                return why
    if root is not None:
        for entry, why in _ROOT_ONLY:
            if _segments_match(entry, parts[: len(entry)]):
                return why
    # A workspace kept inside such a directory (a worktree under TETHER_HOME) is a project of
    # its own: judged by the project entries above.
    if tether_home is not None:
        inside = relative_below(text, tether_home.rstrip("/") or "/")
        if inside is not None and not _root_below(root, tether_home):
            return "tether's own settings and state"
    if home is None:
        return None
    top = home.rstrip("/") or "/"
    inside = relative_below(text, top)
    if not inside:
        return None
    written = inside.split("/")
    rest = inside.casefold().split("/")
    for entry, why in _HOME_BY_FIRST.get(rest[0], ()):
        base = f"{top.rstrip('/')}/{'/'.join(written[: len(entry)])}"
        if tuple(rest[: len(entry)]) == entry and not _root_below(root, base):
            return why
    return None


VENV_BIN_DIRS = frozenset({"bin", "Scripts"})


_SITE_DIRS = frozenset({"site-packages", "dist-packages"})
_LIB_DIRS = frozenset({"lib", "lib64", "Lib"})


def _is_environment(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file() or (directory / "conda-meta").is_dir()


def _virtualenv_program(path: Path) -> str | None:
    """A program of a virtualenv found by its `pyvenv.cfg`, or of a conda environment by its
    `conda-meta` (`conda create -p ./env`, a pixi environment), whatever it is named
    (`env/bin/python`, `.tox/py311/bin/pytest`): what every command that activates it runs;
    or a file of its installed packages (`lib/python3.X/site-packages/pip/__init__.py`,
    `Lib/site-packages/...`), which its programs (`pip`, `pytest`) and every import run outside
    later. A package manager writes there by running (`pip install` is judged as a command),
    never by a write the engine sees. One look at the disk, for paths in a `bin`, `Scripts` or
    site directory only."""
    text = path.as_posix()
    if "/bin/" in text or "/Scripts/" in text:
        for parent in path.parents:
            if parent.name in VENV_BIN_DIRS:
                if _is_environment(parent.parent):
                    return "a virtualenv's programs, run by every command that activates it"
                break
    if "-packages/" not in text:
        return None
    for parent in path.parents:
        if parent.name in _SITE_DIRS:
            # ENV/lib/python3.X/site-packages, ENV/lib/pypy3.X/..., ENV/Lib/site-packages
            lib = parent.parent
            lib = lib.parent if lib.name.startswith(("python", "pypy")) else lib
            if lib.name in _LIB_DIRS and _is_environment(lib.parent):
                return "a virtualenv's installed packages, run by its programs and imports"
            return None
    return None


def _root_below(root: str | None, base: str) -> bool:
    """Whether the workspace root holding a path lies strictly inside `base`."""
    return root is not None and relative_below(root, base) not in (None, "")


_HOME_BY_FIRST: dict[str, list[_Entry]] = {}
"""The home table by its entries' first segment (a write's path is looked up, not scanned)."""
for _name, _why in HOME_SELF_MODIFYING:
    _folded = tuple(_name.casefold().split("/"))
    _HOME_BY_FIRST.setdefault(_folded[0], []).append((_folded, _why))


def _segments_match(entry: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether `parts` are the entry's segments, each literal or a `*`/`?` pattern."""
    return len(parts) == len(entry) and all(
        e == p or (_is_pattern(e) and fnmatch.fnmatchcase(p, e))
        for e, p in zip(entry, parts, strict=True)
    )


def _holding_root(text: str, roots: tuple[str, ...]) -> str | None:
    """The innermost root that holds the path (an added directory may lie inside another)."""
    best: str | None = None
    for base in roots:
        if relative_below(text, base) is not None and (best is None or len(base) > len(best)):
            best = base
    return best
