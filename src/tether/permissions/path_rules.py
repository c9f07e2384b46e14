"""Where a path leads and which path rules it meets: what the kernel opens for it, every form a
rule is matched against (as written, resolved, a process directory's stand-ins, its other
names as hard links), and the matching itself. The reading and writing checks built on it
are access.py's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tether.kernel_paths import is_process_path
from tether.permissions import steps
from tether.permissions.context import PermissionContext
from tether.permissions.file_targets import Located
from tether.permissions.link_names import HARD_LINK_UNKNOWN, link_names
from tether.permissions.name_filters import files_left, may_hold, passes
from tether.permissions.paths import Tokens, normalize
from tether.permissions.process_paths import fold_process_path
from tether.permissions.recursive_reads import reaches_covered
from tether.permissions.rules import Rule, RuleKind

_MAX_FOLDS = 4
"""Process paths folded in one location (each fold removes a `..` or a `/dev/fd` link)."""
PATH_MAX = 4096
"""The longest path the kernel resolves (Linux's PATH_MAX); a longer one fails to open."""


@dataclass
class PathRules:
    """Paths located and matched for one decision (keeps the paths it resolved)."""

    ctx: PermissionContext
    _resolved: dict[Path, Path | None] = field(default_factory=dict[Path, Path | None])
    """Resolutions made in this decision (a command names the same directory many times)."""
    _links: dict[Path, tuple[Path, ...] | None] = field(
        default_factory=dict[Path, tuple[Path, ...] | None]
    )
    """Other names (hard links) found in this decision."""
    _located: dict[Path, Located] = field(default_factory=dict[Path, Located])
    """Paths located in this decision (a word is located for its reads, writes and protected
    paths alike)."""

    def real(self, path: Path) -> Path | None:
        """What the kernel opens for `path` (absolute, as written); None when not known (and
        for a path longer than the kernel takes, which it refuses)."""
        if path in self._resolved:
            return self._resolved[path]
        text = path.as_posix()
        steps.spend(2 + text.count("/"))  # a lookup per component
        found = self.ctx.resolve(path) if len(text) < PATH_MAX else None
        self._resolved[path] = found
        return found

    def locate(self, path: Path, written: Path | None = None, *, depth: int = 0) -> Located:
        """`path` (absolute, as written) as judged; `written` is its folded form if known. A
        path that reaches a process's directory (`/dev/fd/../cwd/x`, `/proc/self/fd/../root`)
        is judged as the kernel reaches it, before any `..` is folded on the words."""
        if written is None and depth == 0:
            found = self._located.get(path)
            if found is None:
                found = self._locate(path, None, depth=0)
                self._located[path] = found
            return found
        return self._locate(path, written, depth=depth)

    def _locate(self, path: Path, written: Path | None, *, depth: int) -> Located:
        folded = self._in_process(path)
        if folded is not None and depth < _MAX_FOLDS:
            return self.locate(folded, depth=depth + 1)
        written = written or normalize(path)
        real = None if is_process_path(written) else self.real(path)
        if real is not None and not is_process_path(real):
            names = self._link_names(real)
            if names is None:
                return Located(written, None, (written, real), HARD_LINK_UNKNOWN)
            forms = (written, real, *names) if real != written else (written, *names)
            return Located(written, real, forms)
        standing = [p for q in (path, written, real) if q is not None for p in self._stand_ins(q)]
        seen: list[Path] = [written, *([real] if real else []), *standing]
        forms = tuple(dict.fromkeys(seen))
        if real is None and not is_process_path(written):
            why = "whose target is not known (a symlink loop, `..` after a missing directory)"
        else:
            why = "in a process's directory under /proc (its links are not paths)"
        return Located(written, None, forms, why)

    def _in_process(self, path: Path) -> Path | None:
        """What the kernel reaches for `path` when that is in a process's directory and
        differs from the path as written (process_paths.fold_process_path), else None."""
        reached = path if is_process_path(path) else self.real(path)
        if reached is None or not is_process_path(reached):
            return None
        folded = fold_process_path(reached)
        return folded if folded.parts != path.parts else None

    def _link_names(self, real: Path) -> tuple[Path, ...] | None:
        """The file's other names (hard links) rules must see too (link_names.py)."""
        if real not in self._links:
            self._links[real] = link_names(self.ctx, real, self._rule_bases)
        return self._links[real]

    def _stand_ins(self, path: Path) -> list[Path]:
        """What a path in a process's directory may name in this file system:
        `/proc/<p>/root/x` is `/x` (if the process shares our root), `/proc/<p>/cwd/x` is `x`
        below the shell's directory or the workspace."""
        parts = path.parts
        if len(parts) < 4 or not is_process_path(path) or parts[3] not in ("root", "cwd"):
            return []
        bases = [Path("/")] if parts[3] == "root" else [self.ctx.cwd, self.ctx.workspace]
        found: list[Path] = []
        for base in bases:
            raw = base.joinpath(*parts[4:])
            found.append(normalize(raw))
            real = self.real(raw)
            if real is not None and not is_process_path(real):
                found.append(real)
                found.extend(self._link_names(real) or ())  # its other names (hard links)
        return found

    def _rules(self, kind: RuleKind, tool: str) -> tuple[Rule, ...]:
        return self.ctx.rules.of(kind, tool)

    def _rule_bases(self, rule: Rule) -> tuple[str, ...]:
        assert rule.path is not None
        base = rule.path.base(workspace=self.ctx.workspace, home=self.ctx.home)
        found = self.ctx.anchors.get(base)
        if found is None:
            real = self.real(base)
            both = (base, real) if real is not None and real != base else (base,)
            found = tuple(b.as_posix() for b in both)
            self.ctx.anchors[base] = found
        return found

    def _matches(self, rule: Rule, paths: Sequence[Path], *, anywhere: bool) -> bool:
        if rule.path is None:
            return rule.specifier is None
        bases = self._rule_bases(rule)
        steps.spend(2 + len(paths) * len(bases))
        return any(
            rule.path.matches(path.as_posix(), base, anywhere=anywhere)
            for path in paths
            for base in bases
        )

    def denied_read(self, path: Path) -> Rule | None:
        """The deny rule matching `path` as written (no symlinks followed): a cheap check for
        words that merely look like files."""
        written = normalize(path)
        for rule in self._rules("deny", "Read"):
            if rule.path is not None and self._matches(rule, (written,), anywhere=True):
                return rule
        return None

    def _overlaps(self, rule: Rule, forms: Sequence[Tokens]) -> bool:
        if rule.path is None:
            return rule.specifier is None
        return any(
            rule.path.overlaps(form, base, anywhere=True)
            for base in self._rule_bases(rule)
            for form in forms
        )

    def _filtered_links(self, real: Path, only: tuple[str, ...]) -> bool:
        """Whether below `real` a hard link whose own name matches one of `only` is known to
        be a file a deny or ask Read rule covers by another name."""
        below = self.ctx.list_tree_unfollowed(real)
        every = (*self._rules("deny", "Read"), *self._rules("ask", "Read"))
        for path in self.ctx.linked_files(real, below or ()):
            if not passes(path.name, only):
                continue
            names = self._link_names(path)
            if names is None or any(self._matches(r, names, anywhere=True) for r in every):
                return True
        return False

    def _reaches_covered(
        self,
        real: Path,
        forms: Sequence[Path],
        only: tuple[str, ...] = (),
        *,
        follows: bool = True,
    ) -> bool:
        """Whether what is below `real` now holds a file a deny or ask Read rule covers (True
        when that is not known: recursive_reads.py); `follows`: through symlinks below."""
        below = self.ctx.list_tree(real) if follows else self.ctx.list_tree_unfollowed(real)
        steps.spend(1 + (len(below) if below is not None else 0) // 16)
        below = files_left(below, only)
        every = (*self._rules("deny", "Read"), *self._rules("ask", "Read"))
        rules = tuple(rule for rule in every if may_hold(rule, only))
        if reaches_covered(
            below, forms, rules, lambda rule, paths: self._matches(rule, paths, anywhere=True)
        ):
            return True
        # A hard link below is also the file its other names are (link_names.py): read when
        # its own name passes the read's filter (`--doctest-glob=envcopy`), whatever the
        # rule's names are.
        for path in self.ctx.linked_files(real, below or ()):
            if only and not passes(path.name, only):
                continue
            names = self._link_names(path)
            if names is None or any(self._matches(r, names, anywhere=True) for r in every):
                return True
        return False
