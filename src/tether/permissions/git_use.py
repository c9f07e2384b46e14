"""What one git command's words add up to while git_policy.py reads them: its reads, writes,
what it runs or brings in, where it runs; `done` makes it a ProgramUse."""

from __future__ import annotations

from dataclasses import dataclass, field

from tether.permissions.git_words import RUNS_PROGRAMS, harmless_setting
from tether.permissions.program_use import ProgramUse


def join(base: str, path: str) -> str:
    """`path` from the directory `-C` moved git to."""
    if not base or path.startswith(("/", "~")):
        return path
    return base.rstrip("/") + "/" + path


@dataclass
class GitUse:
    """What a git command's words read, write, run and bring in, gathered word by word."""

    base: str = ""
    """Where `-C` moved git, relative to where it runs ("" for there)."""
    git_dir: str | None = None
    work_tree: str | None = None
    reads: list[str] = field(default_factory=list[str])
    writes: list[str] = field(default_factory=list[str])
    mentions: list[str] = field(default_factory=list[str])
    runs: list[str] = field(default_factory=list[str])
    pagers: list[str] = field(default_factory=list[str])
    unseen: list[str] = field(default_factory=list[str])
    asks: list[str] = field(default_factory=list[str])
    top_reads: list[str] = field(default_factory=list[str])
    recursive: bool = False
    changes: bool = False
    rewrites_tree: str = ""
    shows: str = ""
    shows_only: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()
    tree_args: tuple[str, ...] = ()
    show_args: tuple[str, ...] = ()

    def setting(self, assignment: str, *, written: bool = False) -> None:
        """A `key=value` setting: harmless, a command run, or what cannot be seen."""
        if harmless_setting(assignment):
            return
        key, _, value = assignment.partition("=")
        key = key.lower()
        if key == "core.pager" or key.startswith("pager."):
            self.pagers.append(value)  # git gives it its output (`pager.log=false`: harmless)
        elif key.startswith("alias.") and value.startswith("!"):
            self.runs.append(value[1:])
        elif RUNS_PROGRAMS.match(key):
            # `!cmd` is a shell command (credential helpers, aliases); so is a plain value.
            self.runs.append(value.removeprefix("!"))
        elif not written:
            self.unseen.append(f"git setting {key} may run what cannot be seen")

    def done(self) -> ProgramUse:
        def fix(word: str) -> str:
            return join(self.base, word)

        return ProgramUse(
            reads=tuple(map(fix, self.reads)),
            writes=tuple(map(fix, self.writes)),
            recursive=self.recursive,
            top_reads=tuple(self.top_reads),
            mentions=tuple(map(fix, self.mentions)),
            shows_unknown=True,
            runs=tuple(self.runs),
            pagers=tuple(self.pagers),
            unseen=tuple(self.unseen),
            asks=tuple(self.asks),
            changes=self.changes,
            rewrites_tree=self.rewrites_tree,
            shows_objects=self.shows,
            shows_only=self.shows_only,
            git_lists=self.lists,
            git_tree_args=self.tree_args,
            git_show_args=self.show_args,
            finds_repository=None if self.git_dir is not None else (self.base or "."),
            names_repository=None if self.git_dir is None else fix(self.git_dir),
            work_tree=None if self.work_tree is None else fix(self.work_tree),
        )
