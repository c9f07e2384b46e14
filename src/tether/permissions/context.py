"""What a permission decision needs to know, and what it returns."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from tether.git_run_paths import run_paths
from tether.kernel_paths import kernel_resolve, user_home
from tether.permissions.disk_probes import (
    names_below,
    names_below_unentered,
    names_below_unfollowed,
    repository_git_dir,
)
from tether.permissions.git_probes import files_git_reads, paths_in_history
from tether.permissions.git_remote_urls import remote_urls
from tether.permissions.git_shown import shown_files
from tether.permissions.git_tree_probe import tree_writes
from tether.permissions.hard_links import Names, linked_files, other_names
from tether.permissions.paths import normalize
from tether.permissions.rules import Mode, RuleSet
from tether.slotted import Slotted

Behavior = Literal["allow", "ask", "deny"]


class Decision(Slotted):
    """The outcome for one tool call: `rule` is the rule that decided it (as written), if any;
    `reason` says why in words a user and a model can act on."""

    __slots__ = ("behavior", "plan_mode", "reason", "rule")
    behavior: Final[Behavior]
    rule: Final[str | None]
    reason: Final[str]
    plan_mode: Final[bool]
    """Denied by plan mode alone (the call is not read-only): someone who can be asked is
    asked instead, as Claude Code asks, with no rule to suggest (a rule cannot allow it)."""

    def __init__(
        self, behavior: Behavior, rule: str | None, reason: str, plan_mode: bool = False
    ) -> None:
        self.behavior = behavior
        self.rule = rule
        self.reason = reason
        self.plan_mode = plan_mode


MAX_LISTED = 10_000
"""Entries of one directory a glob is matched against; past them, what it matches is not
known (glob_disk.py)."""


def directory_names(path: Path) -> tuple[str, ...] | None:
    """The names in directory `path` (none when it cannot be listed: bash's glob matches
    nothing there either); None when there are more than `MAX_LISTED`."""
    names: list[str] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if len(names) >= MAX_LISTED:
                    return None
                names.append(entry.name)
    except OSError:
        return ()
    return tuple(names)


def realpath(path: Path) -> Path | None:
    """The default path resolution, the kernel's: component by component, each symlink
    followed where it is met, a later `..` applied to where it led (tether.kernel_paths).
    None when the kernel's answer is not known (a loop, `..` after a missing directory)."""
    return kernel_resolve(path)


@dataclass(frozen=True)
class PermissionContext:
    """The session's side of a decision. `resolve`, `list_directory`, `list_tree` and
    `find_repository` are the only ways `decide` touches the filesystem (tests pass
    fakes)."""

    mode: Mode
    rules: RuleSet
    workspace: Path
    cwd: Path
    """Where the next Bash command starts; relative paths in it are taken from here."""
    additional_dirs: tuple[Path, ...] = ()
    """More directories treated like the workspace (permissions.additionalDirectories)."""
    home: Path = field(default_factory=Path.home)
    user_home: Callable[[str], Path | None] = user_home
    """The home directory of another user, for `~name` (None: no such user, the word stays
    as written)."""
    read_only_tools: frozenset[str] = frozenset({"Read", "Glob", "Grep"})
    resolve: Callable[[Path], Path | None] = realpath
    """An absolute path as written (`..` not folded) to the path the kernel opens for it."""
    list_directory: Callable[[Path], tuple[str, ...] | None] = directory_names
    """The names in a directory (resolved), for what a Bash glob matches (glob_disk.py)."""
    list_tree: Callable[[Path], tuple[str, ...] | None] = names_below
    """Every path below a resolved path, relative to it (`()` for a file; None when not
    known): whether a recursive read can reach a file a deny rule covers (disk_probes.py)."""
    list_tree_unfollowed: Callable[[Path], tuple[str, ...] | None] = names_below_unfollowed
    """`list_tree` for a recursive read that does not follow symlinks below its top (`grep
    -r`, `rg`): the symlinks below are left out (disk_probes.py)."""
    list_tree_unentered: Callable[[Path], tuple[str, ...] | None] = names_below_unentered
    """`list_tree` for the paths `find` names without `-L`: each symlink below is a name,
    not entered (disk_probes.py)."""
    find_repository: Callable[[Path], Path | None] = repository_git_dir
    """The git directory git finds from a resolved directory, if it finds one: whose
    configuration runs programs (git_repository.py, disk_probes.py)."""
    git_history: Callable[[Path], tuple[str, ...] | None] = paths_in_history
    """Every path (absolute) the repository git finds from a resolved directory holds in its
    index or held in its history (`()` without a repository, None when not known): whether
    `git log -p` may print a file a Read rule denies (git_probes.py)."""
    git_reads: Callable[[Path, tuple[str, ...]], tuple[str, ...] | None] = files_git_reads
    """The files (absolute) git's staging and search commands read from a resolved directory,
    as `git ls-files` lists them (git_listing.py; None when not known)."""
    git_shown: Callable[[Path, tuple[str, ...]], tuple[str, ...] | None] = shown_files
    """The files (absolute) whose content a `git diff`/`log`/`show` prints, from a resolved
    directory, given its words from the subcommand on (git_shown.py; None when not known):
    only those count, not all of history, when it is known."""
    git_tree_writes: Callable[[Path, tuple[str, ...]], tuple[str, ...] | None] = tree_writes
    git_remote_urls: Callable[[Path, tuple[str, ...]], tuple[str, ...] | None] = remote_urls
    """The URLs a git command reaches by the repository's configuration (its remotes, their
    rewrites, its submodules), from a resolved directory, given its words from the
    subcommand on (git_remote_urls.py; () for none, None when not known)."""
    """The files (absolute) a git command that writes the working tree from commits writes,
    from a resolved directory, given its words from the subcommand on (git_tree_probe.py;
    None when not known)."""
    other_names: Callable[[Path, tuple[Path, ...]], Names | None] = other_names
    """The other names (hard links) of a resolved file below resolved directories, and
    whether they are all of them (hard_links.py): a rule on one name holds on every name."""
    linked_files: Callable[[Path, tuple[str, ...]], tuple[Path, ...]] = linked_files
    """Of the paths below a resolved directory, the files with more than one link
    (hard_links.py): a recursive read reaches their other names' rules too."""
    read_dirs: tuple[Path, ...] = ()
    """Directories readable without asking but not writable (the session's scratch directory,
    where long outputs are kept for the model to Read back)."""
    ask_outside_reads: bool = True
    """Reads outside the workspace and its directories ask, as in Claude Code; False allows
    them unless a rule denies."""
    tether_home: Path | None = None
    """Where tether keeps its user settings when `TETHER_HOME` moves it: protected like
    `~/.tether` (defaults.HOME_SELF_MODIFYING)."""
    git_run_paths: tuple[Path, ...] | None = None
    """Paths outside `.git` that git runs programs or reads settings from: the directory
    `core.hooksPath` names, the config files git includes (`tether.git_run_paths`). Writes
    there are asked like writes of the protected paths (defaults.SELF_MODIFYING). None: read
    from the writable roots' repositories when a write is first judged (`run_paths`), so a
    context made by a library caller guards them too."""
    plugin_roots: tuple[Path, ...] = ()
    """The session's plugins' directories (`--plugin-dir`, enabled plugins), resolved: code
    a later session runs; writes there are asked like writes of the protected paths (the
    component places only, for a plugin that is a writable root itself: plugin_places)."""
    bash_sandboxed: bool = False
    """Bash commands run in the sandbox, which keeps the files that change what later sessions
    run read-only: a command writing files it does not name (`git checkout main`) cannot
    write those. Without it such a command is asked like a write of them."""
    write_roots: tuple[Path, ...] = field(init=False, repr=False, compare=False)
    read_roots: tuple[Path, ...] = field(init=False, repr=False, compare=False)
    anchors: dict[Path, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    """Path rules' anchor directories (the workspace, the home, project roots), as written
    and resolved, as strings: fixed for the context like its roots, so resolved once, not
    per decision."""
    link_roots: list[tuple[tuple[Path, ...], bool]] = field(init=False, repr=False, compare=False)
    """The directories below which a file's other names are looked for, and whether a rule
    matches a name anywhere (link_names.rule_roots): fixed with the anchors, so found once."""
    _repositories: list[frozenset[Path]] = field(init=False, repr=False, compare=False)
    _run_paths: list[tuple[Path, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        writable = tuple(self._resolved(p) for p in (self.workspace, *self.additional_dirs))
        readable = (*writable, *(self._resolved(p) for p in self.read_dirs))
        object.__setattr__(self, "write_roots", writable)
        object.__setattr__(self, "read_roots", readable)
        object.__setattr__(self, "anchors", {})
        object.__setattr__(self, "link_roots", [])
        object.__setattr__(self, "_repositories", [])
        object.__setattr__(self, "_run_paths", [])

    @property
    def own_repositories(self) -> frozenset[Path]:
        """The git directories of the repositories the workspace and the added directories
        are in (found once, at the first git command judged): their configuration is the
        project's (git_repository.py)."""
        if not self._repositories:
            found = (self.find_repository(root) for root in self.write_roots)
            self._repositories.append(frozenset(p for p in found if p is not None))
        return self._repositories[0]

    @property
    def run_paths(self) -> tuple[Path, ...]:
        """`git_run_paths`, read once when not given."""
        if self.git_run_paths is not None:
            return self.git_run_paths
        if not self._run_paths:
            self._run_paths.append(run_paths(self.write_roots, home=self.home))
        return self._run_paths[0]

    def _resolved(self, path: Path) -> Path:
        absolute = self.workspace / path.expanduser()
        return self.resolve(absolute) or normalize(absolute)
