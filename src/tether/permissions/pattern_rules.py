"""Rules against a path known only as a pattern (`secrets/*`, `$X/.env`, `.e*`): the forms
it is matched in (as written, from where its fixed part resolves, and the paths in a
process's directory it may stand for), deny rules covering all it may expand to, deny and ask
rules that could match some of it (a hard ask), the protected files it may reach, and the deny
rule a word showing or opening a path could name (access.py's checks build on it)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tether.permissions import steps
from tether.permissions.defaults import HOME_SELF_MODIFYING, SELF_MODIFYING_TOKENS
from tether.permissions.file_targets import CONTENTS_PROBE, GlobPath, Target, with_contents
from tether.permissions.name_filters import may_hold
from tether.permissions.path_rules import PathRules
from tether.permissions.paths import ANY, Tokens, expand_nodot, globs_overlap, normalize
from tether.permissions.process_paths import may_be_process_path, pattern_stand_ins
from tether.permissions.rules import Rule
from tether.permissions.verdict import Verdict, ask, deny


class PatternRules(PathRules):
    """Paths known only as patterns, matched against the rules for one decision."""

    def _glob_rules(self, tool: str, target: GlobPath, doing: str) -> Verdict | None:
        """Deny and ask rules against a path known only as a pattern: denied when a deny rule
        covers whatever it expands to below the directory it cannot leave (`secrets/*`),
        otherwise a hard ask where one could match an expansion (`.e*`, `$X`)."""
        if target.prefix is not None:
            forms = self.locate(target.prefix).forms
            depth = target.rest.count("/") + 1
            for rule in self._rules("deny", tool):
                if all(
                    self._matches(rule, _probes(forms, level), anywhere=True)
                    for level in range(1, depth + 1)
                ):
                    return deny(because(f"{doing} {target.word} is denied", rule), rule.text)
        return self._may_reach(tool, self._glob_forms(target), f"{target.word} may reach files")

    def _may_reach(
        self, tool: str, forms: Sequence[Tokens], what: str, *, only: tuple[str, ...] = ()
    ) -> Verdict | None:
        """A hard ask when a deny or ask rule could match one of `forms`: bypassPermissions
        must not turn "may be a denied file" into a read of it (headless runs deny it)."""
        for kind in ("deny", "ask"):
            for rule in self._rules(kind, tool):
                if may_hold(rule, only) and self._overlaps(rule, forms):
                    return ask(f"{what} {kind} rule {rule.text} covers", rule.text, hard=True)
        return None

    def _may_be_protected(self, forms: Sequence[Tokens]) -> bool:
        protected: list[Tokens] = []
        for root in self.ctx.write_roots:
            top: Tokens = (*root.as_posix().rstrip("/"), "/")
            for entry, root_only in SELF_MODIFYING_TOKENS:
                protected.append((*top, *entry))
                if not root_only:
                    protected.append((*top, ANY, "/", *entry))
        home: Tokens = (*self.ctx.home.as_posix().rstrip("/"), "/")
        protected += [(*home, *entry) for entry, _ in HOME_SELF_MODIFYING]
        if self.ctx.tether_home is not None:
            protected.append(tuple(self.ctx.tether_home.as_posix().rstrip("/")))
        protected += [tuple(p.as_posix().rstrip("/")) for p in self.ctx.run_paths]
        return any(
            globs_overlap(form, name) or globs_overlap(form, (*name, "/", ANY))
            for name in protected
            for form in forms
        )

    def _prefix(self, target: GlobPath) -> Path | None:
        """The directory a pattern cannot leave, resolved; None when it may be anywhere."""
        if target.prefix is None:
            return None
        return self.locate(target.prefix).real

    def _glob_forms(self, target: GlobPath) -> list[Tokens]:
        """The token forms a pattern is matched in: as written, from where its fixed part
        resolves, and, where it may name a path in a process's directory, any path ending as
        it ends (what `/proc/<p>/cwd/x` or `$X/x` with X=/proc/self/cwd may stand for)."""
        forms = expand_nodot(target.tokens)
        # The leading directories as the kernel reaches them, also where the rest may climb
        # out (`gl/$X` with `gl -> .git` writes below `.git` first of all).
        anchor = target.prefix if target.prefix is not None else target.listed_from
        if anchor is not None:
            for base in self.locate(anchor).forms:
                form: Tokens = (*base.as_posix().rstrip("/"), "/", *target.rest)
                if form != target.tokens:
                    forms += expand_nodot(form)
        stand_ins = [
            s
            for form in forms
            if may_be_process_path(form)
            for s in pattern_stand_ins(form, (self.ctx.cwd, self.ctx.workspace))
        ]
        return forms + [form for form in dict.fromkeys(stand_ins) if form not in forms]

    def may_name_denied(
        self, target: Target, tool: str = "Read", *, follow: bool = False
    ) -> Rule | None:
        """The deny rule on `tool` a word standing for `target` could name: taken as written
        when a program shows it from elsewhere (`git show HEAD:.env`, `git log -p --
        secrets`), and also where its symlinks lead (`follow`) when the program may open it
        (`curl -T link`)."""
        if isinstance(target, Path):
            if not follow and tool == "Read":
                return self.denied_read(target) or self.denied_read(target / CONTENTS_PROBE)
            paths = self.locate(target).forms if follow else (normalize(target),)
            forms = with_contents(paths)
            return next(
                (
                    rule
                    for rule in self._rules("deny", tool)
                    if rule.path is not None and self._matches(rule, forms, anywhere=True)
                ),
                None,
            )
        forms = self._glob_forms(target) if follow else expand_nodot(target.tokens)
        return next((r for r in self._rules("deny", tool) if self._overlaps(r, forms)), None)


def because(what: str, rule: Rule) -> str:
    return f"{what} by {rule.text}" + (f": {rule.reason}" if rule.reason else "")


def _probes(forms: Sequence[Path], level: int) -> tuple[Path, ...]:
    """One probe per level a pattern goes down (`secrets/*/key` needs a deny rule to cover
    `secrets/x/y` too), built only when a rule is tried there and counted before it is built:
    its length grows with the level, so the levels of a deep pattern are quadratic work."""
    steps.spend(len(forms) * (1 + level // 8))
    return tuple(form.joinpath(*[CONTENTS_PROBE] * level) for form in forms)
