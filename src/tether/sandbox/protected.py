"""Files in writable places that change what runs later, outside the sandbox: read-only inside.

A command in the sandbox may write the workspace, but not the files that tell tether, Claude
Code, git or an editor what to run, or what to allow, the next time: a hook, an MCP server, a
settings file that turns the sandbox off, `core.fsmonitor` in `.git/config`. Each entry of
the tables says what happens when the path does not exist: either it must not be created
(a placeholder is mounted there while commands run, see `placeholders.py`), or it
cannot do harm by being created and is protected only when present.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Final

from tether.git_run_paths import git_run_paths
from tether.home_files import HOME_DIRECTORIES, HOME_SELF_MODIFYING
from tether.project_files import PROJECT_SELF_MODIFYING
from tether.sandbox.hook_managers import MANAGER_OF, managers_in_play
from tether.sandbox.nofollow import read_regular_file
from tether.slotted import Slotted


class Protected(Slotted):
    """One path to keep read-only under a writable root."""

    __slots__ = ("directory", "file_mask", "only_missing", "path", "placeholder", "why")
    path: Final[str]
    """Relative to the root."""
    directory: Final[bool]
    """What the placeholder is when missing: an empty directory, or a file. Files where
    programs read the path and would fail on a directory: git's own files inside a git
    directory (which git never tracks), the home's files (`.gitconfig`: git refuses to run
    with a directory there; `.claude.json`), and a work tree's files that tools read
    (`file_mask`). A work tree's other placeholders are directories: git never lists an
    empty one."""
    placeholder: Final[str | None]
    """Content of a placeholder file (ignored for directories); None: not guarded when missing."""
    why: Final[str]
    only_missing: Final[bool]
    """Guarded only while missing: what exists is hidden already, or, where a setting makes it
    writable, the user's to write (`~/.config`, whose protected parts have entries of their
    own)."""
    file_mask: Final[bool]
    """A file in a work tree that tools read as their settings (`FILE_MASKED`): its placeholder
    is a unix socket file on disk, with /dev/null mounted over it inside, an empty file that
    reads as no settings (deno failed on a directory at `.npmrc`, lefthook at
    `lefthook-local.yml`). git lists neither a socket nor a device, inside or outside, so
    `git status` and `git add -A` see nothing; a program outside that opens the socket
    meanwhile fails at once; inside, a write vanishes and the name can be neither removed
    nor renamed (a mount point)."""

    def __init__(
        self,
        path: str,
        directory: bool,
        placeholder: str | None,
        why: str,
        only_missing: bool = False,
        *,
        file_mask: bool = False,
    ) -> None:
        self.path = path
        self.directory = directory
        self.placeholder = placeholder
        self.why = why
        self.only_missing = only_missing
        self.file_mask = file_mask


WHOLE_DIRECTORIES = (".cargo", ".config")
"""Directories of a project that hold tools' configuration only, guarded as a whole rather
than by the table's names in them: cargo fails on a directory at `.cargo/config.toml` (a
placeholder), where an empty read-only `.cargo` reads as no configuration; mise and
lefthook read names in `.config` the same way."""


PROJECT_DIRECTORIES = frozenset(
    {".tether", ".claude", ".agents", ".cursor", ".vscode", ".idea", ".husky", ".devcontainer"}
    | {".lefthook", ".lefthook-local", ".yarn/releases", ".yarn/plugins", ".mise"}
)
"""The names of the project table that are directories: a missing one's placeholder is an
empty directory."""

FILE_MASKED = frozenset(
    {".npmrc", ".yarnrc", ".yarnrc.yml", "rust-toolchain", "rust-toolchain.toml", ".envrc"}
    | {".tool-versions", "mise.toml", "mise.local.toml", ".mise.toml", ".mise.local.toml"}
    | {"mise/config.toml", ".pdbrc", ".gdbinit", ".Rprofile", ".Renviron", ".irbrc", ".pryrc"}
    | {".iex.exs", ".ghci", ".octaverc", ".pre-commit-config.yaml"}
    | {name for name in MANAGER_OF if name not in PROJECT_DIRECTORIES}
)
"""The files of the project table that the tools a command runs read as their settings (a
package manager, a version manager, a debugger, a git hook's manager): a missing one's
placeholder reads as an empty file (`Protected.file_mask`), where a directory failed them.
The table's other files are read by a later session or an editor, not by a command: their
placeholder is an empty directory, on which a write fails and says so (the model is told
the path is protected, where a file mask takes the write and keeps nothing)."""


def _workspace_table() -> tuple[Protected, ...]:
    found: dict[str, Protected] = {}
    for entry in PROJECT_SELF_MODIFYING:
        if entry.sandbox != "guard":
            continue
        first = entry.path.split("/")[0]
        if first in WHOLE_DIRECTORIES:
            why = f"tools' configuration, as {entry.path}: {entry.why}"
            found.setdefault(first, Protected(first, True, "", why))
        elif entry.path in FILE_MASKED:
            found[entry.path] = Protected(entry.path, False, "", entry.why, file_mask=True)
        else:
            found[entry.path] = Protected(entry.path, True, "", entry.why)
    return tuple(found.values())


WORKSPACE_PROTECTED: tuple[Protected, ...] = _workspace_table()
"""Under the workspace and every extra writable directory: the entries of the table the
permission engine asks about too (`tether.project_files`) that the sandbox can keep, read-only
where present and guarded by a placeholder where missing, so that a command cannot make one
that takes effect later (`.envrc`, `.npmrc`, `.vscode/tasks.json`). `.git` and `.hg` are
handled apart (`git_protected`, `hg_protected`): where their hooks and config are depends on
what they are."""


HOME_PROTECTED: tuple[Protected, ...] = (
    *(Protected(name, name in HOME_DIRECTORIES, "", why) for name, why in HOME_SELF_MODIFYING),
    Protected(".config", True, "", "the configuration of every tool (hidden)", only_missing=True),
)
"""Under the home directory, wherever it is writable in the sandbox (the workspace is the
home or holds it, `sandbox.writable` names it or a directory in it). The table is the one the
permission engine uses (`tether.home_files`); `.config` is added whole, since the sandbox
hides it whole: a missing one must not be made either. Placeholders for files are empty files
(read as an empty configuration): in a home that is itself a git work tree, they show as
untracked while a command runs. What exists and is hidden
(`SECRETS_IN_HOME`) stays hidden: what is written there vanishes with the sandbox."""

GIT_HOOKS = Protected("hooks", True, "", "programs git runs on commit, checkout, merge...")
GIT_DIR_PROTECTED: tuple[Protected, ...] = (
    Protected("config", False, "", "core.fsmonitor, core.hooksPath, aliases: programs git runs"),
    GIT_HOOKS,
    Protected("config.worktree", False, "", "read instead of config with worktreeConfig"),
    # info/attributes picks the diff, merge and filter drivers the user's git runs;
    # info/exclude hides files from the user's `git status`: the directory whole.
    Protected("info", True, "", "attributes (which drivers run) and exclude (what is shown)"),
    # git refuses to run with an empty commondir; "." names the directory itself.
    Protected("commondir", False, ".\n", "moves the hooks and config git reads elsewhere"),
)
"""Inside each git directory of a writable root."""

_GIT_DIR_MARKS = ("HEAD", "config", "hooks", "commondir", "config.worktree")
"""What makes a directory under `.git/modules` a submodule's git directory here: what git
reads there, or runs from (a directory made before git makes it, with a hook only or a
`commondir` only, is reused by the next `git submodule update --init`)."""

_SUBMODULE_DEPTH = 4
"""How deep submodule git directories are looked for under `.git/modules` (a submodule's
name is its path, so `modules/vendor/lib` is one)."""


def protected_in(
    root: Path,
    table: tuple[Protected, ...],
    *,
    nested: bool = False,
    tools: frozenset[str] = frozenset(),
) -> list[tuple[Path, Protected]]:
    """The absolute paths of `table` under `root`, git directories included when the table is
    the workspace's; in a nested project, `tools` (first names) guarded while missing too."""
    if table is not WORKSPACE_PROTECTED:
        return [(root / entry.path, entry) for entry in table]
    git = git_protected(root)
    hook_dirs = [path for path, entry in git if entry is GIT_HOOKS]
    hook_dirs += [*git_run_paths(root).hooks, root / ".husky"]
    in_play = managers_in_play(root, hook_dirs, listing)
    found = [
        (root / entry.path, _unless_idle(entry, in_play, nested=nested, tools=tools))
        for entry in table
    ]
    return found + git + hg_protected(root)


def _unless_idle(
    entry: Protected, in_play: frozenset[str], *, nested: bool, tools: frozenset[str] = frozenset()
) -> Protected:
    """`entry`, or the same kept read-only only where it exists: a hook manager's that is not
    in play (`hook_managers.py`), or, in a nested project, one neither in `NESTED_GUARDED` nor
    among the start-up files of the tools its build files name (`tools`)."""
    manager = MANAGER_OF.get(entry.path)
    idle = manager is not None and manager not in in_play
    first = entry.path.split("/")[0]
    if not idle and (not nested or entry.path in NESTED_GUARDED or first in tools):
        return entry
    return Protected(entry.path, entry.directory, None, entry.why)


NESTED_GUARDED = frozenset(
    {".tether", ".claude", ".agents", ".mcp.json", "config/mcp_config.yaml", ".vscode", ".idea"}
    | {".husky", ".pre-commit-config.yaml"}
)
"""What a nested project has guarded while missing (besides `.git` and `.hg`): what an
agent's session or an editor started there later obeys, and the hooks git runs there. Its
other names are read-only where they exist: each guarded name is a bind mount on every
command, and bwrap's time grows faster than their count (a workspace with five nested
repositories and every name guarded in each: 670 mounts, 4 s a command)."""


def hg_protected(root: Path) -> list[tuple[Path, Protected]]:
    """Mercurial's `hgrc` files (hooks run by hg commands) where `.hg` is a repository: files,
    since hg reads them as such and never tracks its own directory. A missing or empty `.hg`
    is kept whole as a placeholder directory, so that `hg init` cannot make a repository
    whose hgrc runs at the user's next `hg status` (as a missing `.git`)."""
    dot_hg = root / ".hg"
    if not os.path.lexists(dot_hg) or _empty_directory(dot_hg):
        return [(dot_hg, Protected(".hg", True, "", "a new Mercurial repository's hooks"))]
    why = "Mercurial's hooks, run by hg commands"
    return [(dot_hg / name, Protected(name, False, "", why)) for name in HG_FILES]


HG_FILES = ("hgrc", "hgrc-not-shared")


def git_protected(root: Path) -> list[tuple[Path, Protected]]:
    """`.git` itself when it is a file (a worktree's or submodule's pointer), and the protected
    entries of every git directory it leads to: the main one, its submodules', a linked
    worktree's and its common directory. A missing `.git` is a placeholder directory, so that
    `git init` cannot make a repository whose config runs at the user's next `git status`; an
    empty `.git` directory (no repository: git passes it by) is kept whole the same way, such
    as the placeholder a previous command left for this one."""
    dot_git = root / ".git"
    if not os.path.lexists(dot_git) or _empty_directory(dot_git):
        return [(dot_git, Protected(".git", True, "", "a new repository's config and hooks"))]
    if dot_git.is_file():
        found = [(dot_git, Protected(".git", False, None, "points git at a git directory"))]
        target = _gitdir_pointer(dot_git)
        dirs = [] if target is None else [target, *_common_dir(target)]
    else:
        found, dirs = [], [dot_git, *_submodule_git_dirs(dot_git / "modules")]
        dirs += _linked_worktree_dirs(dot_git / "worktrees")
    for git_dir in dirs:
        found += [(git_dir / e.path, e) for e in GIT_DIR_PROTECTED]
    return found + _configured(root, {path for path, _ in found})


HOOK_NAMES = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
    "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout",
    "post-merge", "pre-push", "pre-receive", "update", "proc-receive", "post-receive",
    "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite",
    "sendemail-validate", "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist",
    "p4-post-changelist", "p4-pre-submit", "post-index-change",
)  # fmt: skip
"""The hooks git runs (githooks(5)), by name."""


def _configured(root: Path, known: set[Path]) -> list[tuple[Path, Protected]]:
    """What the repository's configuration makes git run from outside its git directory
    (`tether.git_run_paths`): the `core.hooksPath` directory, guarded like `.git/hooks`
    (missing: a placeholder, so a command cannot create it full of hooks), or its hooks by
    name when it is the work tree itself or above it; and the config files git includes,
    read-only where they exist (one that names another hooks directory would do the same)."""
    paths = git_run_paths(root)
    found: list[tuple[Path, Protected]] = []
    for hooks in paths.hooks:
        if root.is_relative_to(hooks):
            why = "a hook git runs from core.hooksPath, the work tree itself"
            found += [(hooks / name, Protected(name, True, "", why)) for name in HOOK_NAMES]
        else:
            found.append((hooks, Protected(hooks.name, True, "", "the hooks core.hooksPath names")))
    for config in paths.config_files:
        if config not in known:
            found.append((config, Protected(config.name, False, None, "git config it includes")))
    return found


def _empty_directory(path: Path) -> bool:
    """A real, empty directory: no repository (git passes it by), and one `git init` would
    fill; kept read-only as a whole, as a missing `.git` is."""
    if path.is_symlink() or not path.is_dir():
        return False
    return listing(os.fspath(path)) == []


def _gitdir_pointer(dot_git: Path) -> Path | None:
    value = _small_text(dot_git, "gitdir: ")
    return None if value is None else _resolved(dot_git.parent / value)


def _common_dir(git_dir: Path) -> list[Path]:
    value = _small_text(git_dir / "commondir", "")
    common = git_dir if value is None else _resolved(git_dir / value)
    return [] if common is None or common == git_dir else [common]


def _small_text(path: Path, prefix: str) -> str | None:
    """The one line of a git pointer file after `prefix`, or None. A command may have made
    the file (a nested project's `.git`, a `commondir`): only a regular file is read, never a
    fifo or a device, and only its start. Read as git reads it: a C string, so up to a NUL
    (`gitdir: ../store\\0junk` sends git to `../store`)."""
    raw = read_regular_file(path, 4096)
    if raw is None:
        return None
    text = raw.split(b"\0", 1)[0].decode("utf-8", errors="surrogateescape")
    if not text.startswith(prefix):
        return None
    return text[len(prefix) :].split("\n", 1)[0].rstrip("\r") or None


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python before 3.13)
        return None


def _submodule_git_dirs(modules: Path, depth: int = _SUBMODULE_DEPTH) -> list[Path]:
    if depth == 0 or not modules.is_dir() or modules.is_symlink():
        return []
    found: list[Path] = []
    try:
        children = sorted(p for p in modules.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    for child in children:
        if any(os.path.lexists(child / name) for name in _GIT_DIR_MARKS):
            found += [child, *_submodule_git_dirs(child / "modules", depth - 1)]
        else:
            found += _submodule_git_dirs(child, depth - 1)
    return found


def _linked_worktree_dirs(worktrees: Path) -> list[Path]:
    # Not through a symlink: `ln -s ~/.ssh .git/worktrees` would make every directory in the
    # link's target a git directory to protect (and to make placeholders in).
    if worktrees.is_symlink():
        return []
    try:
        return sorted(p for p in worktrees.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []


Listing = list[tuple[str, bool]]
"""A directory's entries: (name, whether it is a directory, links not followed)."""

_listings: dict[str, tuple[tuple[int, int, int, int], Listing]] = {}
"""Listings by directory, with the identity and change times they were read at."""
_LISTINGS_KEPT = 50_000
RACY_NS = 1_000_000_000
"""A directory changed this close before its listing was read may change again within the
same tick of the file system's clock (timestamps are coarse) without its times moving: such
a listing is read again next time, as git treats "racily clean" entries."""


def listing(directory: str) -> Listing | None:
    """The entries of `directory` (None if it cannot be listed), read again only when it has
    changed: an entry added, removed or renamed in it moves its change time (`st_ctime`, which
    no program can set back, unlike `st_mtime`)."""
    key = directory
    try:
        info = os.stat(key, follow_symlinks=False)
    except OSError:
        return None
    identity = (info.st_dev, info.st_ino, info.st_ctime_ns, info.st_mtime_ns)
    cached = _listings.get(key)
    if cached is not None and cached[0] == identity:
        return cached[1]
    started = time.time_ns()
    try:
        with os.scandir(key) as entries:
            children = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    except OSError:
        return None
    if info.st_ctime_ns < started - RACY_NS and info.st_mtime_ns < started - RACY_NS:
        if len(_listings) >= _LISTINGS_KEPT:
            _listings.clear()
        _listings[key] = (identity, children)
    else:
        _listings.pop(key, None)
    return children


def gitdir_pointer(dot_git: Path) -> Path | None:
    """Where a `.git` file points, resolved; None when it is no pointer (read safely)."""
    return _gitdir_pointer(dot_git)


def common_dirs(git_dir: Path) -> list[Path]:
    """The common directory a git directory's `commondir` names, when another (read safely)."""
    return _common_dir(git_dir)


def submodule_git_dirs(modules: Path) -> list[Path]:
    """The submodules' git directories under a `modules` directory, as protected here."""
    return _submodule_git_dirs(modules)


def linked_worktree_dirs(worktrees: Path) -> list[Path]:
    """The linked worktrees' git directories under a `worktrees` directory, as protected."""
    return _linked_worktree_dirs(worktrees)
