"""What a permission decision needs to know, and what it returns."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tether.permissions.paths import normalize
from tether.permissions.rules import Mode, RuleSet

Behavior = Literal["allow", "ask", "deny"]


@dataclass(frozen=True)
class Decision:
    """The outcome for one tool call: `rule` is the rule that decided it (as written), if any;
    `reason` says why in words a user and a model can act on."""

    behavior: Behavior
    rule: str | None
    reason: str


def realpath(path: Path) -> Path:
    """The default path resolution: symlinks and `..` resolved, like the tools do."""
    return Path(os.path.realpath(path))


@dataclass(frozen=True)
class PermissionContext:
    """The session's side of a decision. `resolve` is the only way `decide` touches the
    filesystem (tests pass a fake)."""

    mode: Mode
    rules: RuleSet
    workspace: Path
    cwd: Path
    """Where the next Bash command starts; relative paths in it are taken from here."""
    additional_dirs: tuple[Path, ...] = ()
    """More directories treated like the workspace (permissions.additionalDirectories)."""
    home: Path = field(default_factory=Path.home)
    read_only_tools: frozenset[str] = frozenset({"Read", "Glob", "Grep"})
    resolve: Callable[[Path], Path] = realpath
    read_dirs: tuple[Path, ...] = ()
    """Directories readable without asking but not writable (the session's scratch directory,
    where long outputs are kept for the model to Read back)."""
    ask_outside_reads: bool = True
    """Reads outside the workspace and its directories ask, as in Claude Code; False allows
    them unless a rule denies."""
    write_roots: tuple[Path, ...] = field(init=False, repr=False, compare=False)
    read_roots: tuple[Path, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        writable = tuple(self._resolved(p) for p in (self.workspace, *self.additional_dirs))
        readable = (*writable, *(self._resolved(p) for p in self.read_dirs))
        object.__setattr__(self, "write_roots", writable)
        object.__setattr__(self, "read_roots", readable)

    def _resolved(self, path: Path) -> Path:
        return self.resolve(normalize(self.workspace / path.expanduser()))
