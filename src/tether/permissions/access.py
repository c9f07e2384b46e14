"""Reading and writing files: the checks shared by the file tools and Bash.

A read is denied by a deny rule on `Read` (and asked by an ask rule), allowed inside the
workspace, asked outside it. A write is denied by a deny rule on `Edit`, asked when protected
(repository internals, permission settings) or outside the workspace, and otherwise needs an
allow rule, the acceptEdits mode, or a Bash rule that allowed the command doing it.

Paths are checked as given (`..` folded) and as resolved (symlinks followed): a deny rule
matching either form applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tether.permissions.context import PermissionContext
from tether.permissions.defaults import PROTECTED_DIRS, PROTECTED_FILES, is_device, is_protected
from tether.permissions.paths import ANY, Tokens, expand_nodot, globs_overlap, is_below
from tether.permissions.rules import Rule, RuleKind
from tether.permissions.verdict import ALLOW, Verdict, allow, ask, deny, none


@dataclass(frozen=True)
class GlobPath:
    """A path known only as a pattern (`src/*.py`, `$HOME/.ssh/id_rsa`)."""

    word: str
    """As the user wrote it, for messages."""
    tokens: Tokens
    """The absolute path as glob tokens (paths.py)."""
    prefix: Path | None
    """A directory the pattern cannot leave, or None when it could be anywhere."""


Target = Path | GlobPath


@dataclass
class FileAccess:
    """File checks for one decision (keeps resolved rule bases for its duration)."""

    ctx: PermissionContext
    _bases: dict[Path, tuple[Path, ...]] = field(default_factory=dict[Path, tuple[Path, ...]])
    """Path rules' anchor directories, as written and resolved: most rules share one (the
    workspace), so it is resolved once per decision, not once per rule."""

    def read(self, target: Target, *, explicit: bool = False, recursive: bool = False) -> Verdict:
        if isinstance(target, GlobPath):
            return self._read_glob(target, explicit=explicit)
        shown = target.as_posix()
        if is_device(shown, write=False):
            return ALLOW
        real = self.ctx.resolve(target)
        forms = _with_contents((target, real) if real != target else (target,))
        for rule in self._rules("deny", "Read"):
            if self._matches(rule, forms, anywhere=True):
                return deny(_because(f"reading {shown} is denied", rule), rule.text)
        for rule in self._rules("ask", "Read"):
            if self._matches(rule, forms, anywhere=True):
                return ask(
                    _because(f"reading {shown} needs confirmation", rule), rule.text, hard=True
                )
        if recursive:
            inside: Tokens = (*real.as_posix().rstrip("/"), "/", ANY)
            for kind in ("deny", "ask"):
                for rule in self._rules(kind, "Read"):
                    if self._overlaps(rule, (inside,)):
                        return ask(
                            f"searches {shown}, which may hold files {kind} rule "
                            f"{rule.text} covers",
                            hard=kind == "ask",
                        )
        return self._read_location(real, shown, explicit=explicit)

    def _read_location(self, real: Path | None, shown: str, *, explicit: bool) -> Verdict:
        if real is not None and is_below(real, self.ctx.read_roots):
            return allow("inside the workspace")
        if explicit:
            return allow("read by an allowed command")
        if real is not None:
            for rule in self._rules("allow", "Read"):
                if self._matches(rule, (real,), anywhere=False):
                    return allow(rule=rule.text)
        if not self.ctx.ask_outside_reads:
            return allow("outside the workspace; no rule denies it")
        where = "outside the workspace" if real is not None else "which may be anywhere"
        return none(f"reads {shown}, {where}")

    def _read_glob(self, target: GlobPath, *, explicit: bool) -> Verdict:
        forms = self._glob_forms(target)
        for kind in ("deny", "ask"):
            for rule in self._rules(kind, "Read"):
                if self._overlaps(rule, forms):
                    return ask(
                        f"{target.word} may reach files {kind} rule {rule.text} covers",
                        hard=kind == "ask",
                    )
        prefix = self.ctx.resolve(target.prefix) if target.prefix is not None else None
        return self._read_location(prefix, target.word, explicit=explicit)

    def write(self, target: Target, *, explicit: bool = False) -> Verdict:
        if isinstance(target, GlobPath):
            return self._write_glob(target, explicit=explicit)
        shown = target.as_posix()
        if is_device(shown, write=True):
            return ALLOW
        real = self.ctx.resolve(target)
        forms = _with_contents((target, real) if real != target else (target,))
        for rule in self._rules("deny", "Edit"):
            if self._matches(rule, forms, anywhere=True):
                return deny(_because(f"writing {shown} is denied", rule), rule.text)
        roots = self.ctx.write_roots
        if any(is_protected(p, roots) for p in (target, real)):
            return ask(f"writes {shown}, a protected path (repository or settings)", hard=True)
        if not is_below(real, roots, strictly=True):
            return ask(f"writes {shown}, outside the workspace")
        for rule in self._rules("ask", "Edit"):
            if self._matches(rule, forms, anywhere=True):
                return ask(
                    _because(f"writing {shown} needs confirmation", rule), rule.text, hard=True
                )
        return self._write_inside(real, shown, explicit=explicit)

    def _write_inside(self, real: Path | None, shown: str, *, explicit: bool) -> Verdict:
        if explicit:
            return allow("written by an allowed command")
        if real is not None:
            for rule in self._rules("allow", "Edit"):
                if self._matches(rule, (real,), anywhere=False):
                    return allow(rule=rule.text)
        if self.ctx.mode == "acceptEdits":
            return allow("acceptEdits mode: edits in the workspace")
        return none(f"writes {shown}")

    def _write_glob(self, target: GlobPath, *, explicit: bool) -> Verdict:
        forms = self._glob_forms(target)
        for kind in ("deny", "ask"):
            for rule in self._rules(kind, "Edit"):
                if self._overlaps(rule, forms):
                    return ask(
                        f"{target.word} may reach files {kind} rule {rule.text} covers",
                        hard=kind == "ask",
                    )
        if self._may_be_protected(target, forms):
            return ask(f"{target.word} may reach a protected path", hard=True)
        prefix = self.ctx.resolve(target.prefix) if target.prefix is not None else None
        if prefix is None or not is_below(prefix, self.ctx.write_roots):
            return ask(f"writes {target.word}, which may be outside the workspace")
        return self._write_inside(None, target.word, explicit=explicit)

    def _may_be_protected(self, target: GlobPath, forms: Sequence[Tokens]) -> bool:
        for root in self.ctx.write_roots:
            top: Tokens = (*root.as_posix().rstrip("/"), "/")
            for name in (*PROTECTED_DIRS, *PROTECTED_FILES):
                for protected in ((*top, *name), (*top, ANY, "/", *name)):
                    for form in forms:
                        if globs_overlap(form, protected) or globs_overlap(
                            form, (*protected, "/", ANY)
                        ):
                            return True
        return False

    def _glob_forms(self, target: GlobPath) -> list[Tokens]:
        forms = expand_nodot(target.tokens)
        if target.prefix is not None:
            real = self.ctx.resolve(target.prefix)
            if real != target.prefix:
                lead = len(target.prefix.as_posix().rstrip("/"))
                forms += expand_nodot((*real.as_posix().rstrip("/"), *target.tokens[lead:]))
        return forms

    def _rules(self, kind: RuleKind, tool: str) -> tuple[Rule, ...]:
        return self.ctx.rules.of(kind, tool)

    def _rule_bases(self, rule: Rule) -> tuple[Path, ...]:
        assert rule.path is not None
        base = rule.path.base(workspace=self.ctx.workspace, home=self.ctx.home)
        found = self._bases.get(base)
        if found is None:
            real = self.ctx.resolve(base)
            found = (base, real) if real != base else (base,)
            self._bases[base] = found
        return found

    def _matches(self, rule: Rule, paths: Sequence[Path], *, anywhere: bool) -> bool:
        if rule.path is None:
            return rule.specifier is None
        texts = [p.as_posix() for p in paths]
        bases = [b.as_posix() for b in self._rule_bases(rule)]
        return any(
            rule.path.matches(text, base, anywhere=anywhere) for base in bases for text in texts
        )

    def denied_read(self, path: Path) -> Rule | None:
        """The deny rule matching `path` as written (no symlinks followed): a cheap check for
        words that merely look like files."""
        for rule in self._rules("deny", "Read"):
            if rule.path is not None and self._matches(rule, (path,), anywhere=True):
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


CONTENTS_PROBE = "\x00"
"""A name no rule spells out: a rule matching `dir/<probe>` covers every file in `dir`, so
reading or writing `dir` itself (a listing, a search, `rm -r`) is covered too."""


def _with_contents(paths: tuple[Path, ...]) -> tuple[Path, ...]:
    return (*paths, *(p / CONTENTS_PROBE for p in paths))


def _because(what: str, rule: Rule) -> str:
    return f"{what} by {rule.text}" + (f": {rule.reason}" if rule.reason else "")
