"""Reading and writing files: the checks shared by the file tools and Bash.

A read is denied by a deny rule on `Read` (and asked by an ask rule), allowed inside the
workspace, asked outside it. A write is denied by a deny rule on `Edit`, asked when it changes
what a later session allows or runs (defaults.SELF_MODIFYING: asked whatever allow rules and
acceptEdits say, written without asking only in bypassPermissions) or is outside the
workspace, and otherwise needs an allow rule, the acceptEdits mode, or a Bash rule that
allowed the command doing it.

A path is judged by what the kernel opens for it (`context.resolve`: symlinks followed
component by component, a later `..` applied to where they led); deny and ask rules also
match it as written (`..` folded), so a rule naming a link's path still holds. A path whose
target is not known (a symlink loop, `..` after a missing directory, a process's directory
under `/proc`, `/dev/fd/N`) is asked, in every mode but bypassPermissions; denied when a
deny rule matches what it may stand for (`/proc/self/root/x` for `/x`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tether.kernel_paths import is_process_path
from tether.permissions import steps
from tether.permissions.defaults import (
    is_device,
    self_modifying,
)
from tether.permissions.file_targets import (
    GlobPath,
    Located,
    Target,
    with_contents,
)
from tether.permissions.glob_disk import disk_matches
from tether.permissions.paths import ANY, Tokens, is_below, normalize
from tether.permissions.pattern_rules import PatternRules, because
from tether.permissions.process_paths import (
    PROCESS_UNKNOWN,
    ending,
    may_be_process_path,
    through_link,
)
from tether.permissions.verdict import ALLOW, Verdict, allow, ask, deny, none, worst
from tether.plugin_places import PLUGIN_WHY, in_plugin


@dataclass
class FileAccess(PatternRules):
    """File checks for one decision (keeps the paths it resolved for its duration)."""

    _judged: dict[tuple[Target, str], Verdict] = field(
        default_factory=dict[tuple[Target, str], Verdict]
    )
    """Checks made in this decision (`ls; ls; ls` reads `.` three times)."""

    def read(
        self,
        target: Target,
        *,
        explicit: bool = False,
        recursive: bool = False,
        only: tuple[str, ...] = (),
        follows: bool = True,
    ) -> Verdict:
        """`only`: a recursive read takes only files whose base names match one of these
        globs (name_filters); `follows`: it reads through symlinks below its top."""
        key = (target, f"read {explicit} {recursive} {only} {follows}")
        found = self._judged.get(key)
        if found is None:
            steps.spend(_CHECK_STEPS)
            found = self._judged[key] = self._read(
                target, explicit=explicit, recursive=recursive, only=only, follows=follows
            )
        return found

    def _read(
        self,
        target: Target,
        *,
        explicit: bool,
        recursive: bool,
        only: tuple[str, ...] = (),
        follows: bool = True,
    ) -> Verdict:
        if isinstance(target, GlobPath):
            return self._read_glob(target, explicit=explicit)
        written = normalize(target)
        if is_device(written.as_posix(), write=False):
            return ALLOW
        seen = self.locate(target, written)
        shown = seen.shown(target)
        forms = with_contents(seen.forms)
        for rule in self._rules("deny", "Read"):
            if self._matches(rule, forms, anywhere=True):
                return deny(because(f"reading {shown} is denied", rule), rule.text)
        for rule in self._rules("ask", "Read"):
            if self._matches(rule, forms, anywhere=True):
                return ask(
                    because(f"reading {shown} needs confirmation", rule), rule.text, hard=True
                )
        found = self._stood_for("Read", seen, shown)
        if found is not None:
            return found
        real = seen.real
        if real is None:
            # `grep -r x /proc/self/cwd` searches what its stand-ins are (the shell's
            # directory, the workspace): the rules below them hold, bypassPermissions too.
            for form in seen.forms if recursive else ():
                inside = ((*form.as_posix().rstrip("/"), "/", ANY),)
                reach = self._may_reach("Read", inside, f"searches {shown}, which may hold files")
                if (
                    reach is not None
                    and not is_process_path(form)
                    and self._reaches_covered(form, (form,), only)
                ):
                    return reach
            return none(f"reads {shown}, {seen.unknown}")
        if recursive:
            # Below the directory as written too: through a link (`homelink -> ~`) the
            # files it reaches are the link's paths as well, which a rule may name.
            inside: tuple[Tokens, ...] = tuple(
                (*form.as_posix().rstrip("/"), "/", ANY)
                for form in dict.fromkeys((real, *seen.forms))
            )
            what = f"searches {shown}, which may hold files"
            found = self._may_reach("Read", inside, what, only=only)
            if found is not None and self._reaches_covered(real, seen.forms, only, follows=follows):
                return found
            # A hard link whose own name passes the filter is also its other names' file.
            found = self._may_reach("Read", inside, what) if only else None
            if found is not None and self._filtered_links(real, only):
                return found
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
        found = self._glob_rules("Read", target, "reading")
        if found is None and self._in_process_directory(target):
            found = none(f"reads {target.word}, {PROCESS_UNKNOWN}")
        if found is None:
            found = self._read_location(self._prefix(target), target.word, explicit=explicit)
        if found.outcome == "deny":
            return found
        on_disk = self._on_disk(target, "Read", lambda p: self.read(p, explicit=explicit))
        return worst([found, *on_disk])

    def _on_disk(
        self, target: GlobPath, tool: str, judge: Callable[[Path], Verdict]
    ) -> list[Verdict]:
        """What the pattern matches now, each match judged as the literal path is, symlinks
        followed (glob_disk.py); a directory too large to list may hold anything."""
        matches = disk_matches(target, self.real, self.ctx.list_directory)
        if matches is None:
            what = f"{target.word} matches in a directory too large to list; it may reach files"
            return [self._may_reach(tool, [(ANY,)], what) or none(f"{what} anywhere")]
        return [
            replace(found, reason=f"{target.word} matches {path.as_posix()}: {found.reason}")
            for path in matches
            if (found := judge(path)).outcome != "allow"
        ]

    def _stood_for(self, tool: str, seen: Located, shown: str) -> Verdict | None:
        """A path in a process's directory that is not `root/...` or `cwd/...` (those stand
        for paths here: `_stand_ins`) may lead anywhere (`fd/N/x`, `task/<t>/cwd/x`...): a hard
        ask where a deny or ask rule could match a path ending as it ends."""
        if seen.real is not None or not is_process_path(seen.written):
            return None
        if not through_link(seen.written.parts[3:]):
            return None
        form = ending(tuple(seen.written.as_posix()))
        found = self._may_reach(tool, [form], f"{shown} may stand for files")
        if found is None and tool == "Edit" and self._may_be_protected([form]):
            return ask(f"{shown} may stand for a file that {PROTECTED_NOTE}")
        return found

    def _in_process_directory(self, target: GlobPath) -> bool:
        """Whether a pattern with a fixed root may name a path in a process's directory under
        `/proc` (`/proc/$$/cwd/x`, `/proc/*/root/x`, `/pro?/self/x`, `/dev/fd/*`): unknown,
        as such a literal path is."""
        return any(
            form[:1] == ("/",) and may_be_process_path(form) for form in self._glob_forms(target)
        )

    def write(self, target: Target, *, explicit: bool = False) -> Verdict:
        key = (target, f"write {explicit}")
        found = self._judged.get(key)
        if found is None:
            steps.spend(_CHECK_STEPS)
            found = self._judged[key] = self._write(target, explicit=explicit)
        return found

    def _write(self, target: Target, *, explicit: bool) -> Verdict:
        if isinstance(target, GlobPath):
            return self._write_glob(target, explicit=explicit)
        written = normalize(target)
        if is_device(written.as_posix(), write=True):
            return ALLOW
        seen = self.locate(target, written)
        shown = seen.shown(target)
        forms = with_contents(seen.forms)
        for rule in self._rules("deny", "Edit"):
            if self._matches(rule, forms, anywhere=True):
                return deny(because(f"writing {shown} is denied", rule), rule.text)
        for rule in self._rules("ask", "Edit"):
            if self._matches(rule, forms, anywhere=True):
                return ask(
                    because(f"writing {shown} needs confirmation", rule), rule.text, hard=True
                )
        # Before allow rules, acceptEdits and the allowing Bash rule: none of them passes a
        # write that changes what later sessions allow or run. Not hard: bypassPermissions is
        # the one mode that writes these without asking.
        for path in seen.forms:
            what = self._self_modifying(path)
            if what is not None:
                return ask(f"writes {shown}, which holds {what}: {PROTECTED_NOTE}")
        found = self._stood_for("Edit", seen, shown)
        if found is not None:
            return found
        real = seen.real
        if real is None:
            return none(f"writes {shown}, {seen.unknown}")
        if is_below(real, self.ctx.write_roots, strictly=False) and not is_below(
            real, self.ctx.write_roots, strictly=True
        ):
            # `find . -delete`, `rm -r .`: not outside, but no rule on a file inside covers it.
            return ask(
                f"writes {shown}, the workspace itself: {ROOT_WRITE}",
            )
        if not is_below(real, self.ctx.write_roots, strictly=True):
            return ask(f"writes {shown}, outside the workspace")
        return self._write_inside(real, shown, explicit=explicit)

    def _self_modifying(self, path: Path) -> str | None:
        if is_below(path, self.ctx.run_paths):
            return GIT_RUN_PATH
        for plugin in self.ctx.plugin_roots:
            text, root = path.as_posix(), plugin.as_posix()
            if in_plugin(text, root, root if plugin in self.ctx.write_roots else ""):
                return PLUGIN_WHY
        return self_modifying(
            path, self.ctx.write_roots, home=self.ctx.home, tether_home=self.ctx.tether_home
        )

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
        found = self._write_spelled(target, explicit=explicit)
        if found.outcome == "deny":
            return found
        on_disk = self._on_disk(target, "Edit", lambda p: self.write(p, explicit=explicit))
        return worst([found, *on_disk])

    def _write_spelled(self, target: GlobPath, *, explicit: bool) -> Verdict:
        found = self._glob_rules("Edit", target, "writing")
        if found is not None:
            return found
        forms = self._glob_forms(target)
        if self._may_be_protected(forms):
            return ask(f"{target.word} may reach a file that {PROTECTED_NOTE}")
        if self._in_process_directory(target):
            return none(f"writes {target.word}, {PROCESS_UNKNOWN}")
        prefix = self._prefix(target)
        if prefix is None or not is_below(prefix, self.ctx.write_roots):
            return ask(f"writes {target.word}, which may be outside the workspace")
        return self._write_inside(None, target.word, explicit=explicit)

    def protected(self, target: Target) -> str | None:
        """What `target` configures when writing it changes what later sessions allow or run
        (defaults.SELF_MODIFYING), as written or where its symlinks lead; for a pattern, when
        it may reach such a file."""
        if isinstance(target, GlobPath):
            found = self._may_be_protected(self._glob_forms(target))
            return "files that change what later sessions run or allow" if found else None
        for path in self.locate(target).forms:
            what = self._self_modifying(path)
            if what is not None:
                return what
        return None


_CHECK_STEPS = 12
"""The work of one read or write check apart from resolving and matching rules, in steps
(steps.py)."""
GIT_RUN_PATH = "the hooks or configuration git runs programs from (core.hooksPath, includes)"
ROOT_WRITE = (
    "what it writes there may be .git/hooks or the workspace's own configuration "
    "(.claude/settings.json), which run or allow programs later, and a delete there "
    "reaches all below it"
)
PROTECTED_NOTE = "asked in every mode but bypassPermissions, whatever the rules allow"
"""Why a self-modifying write is asked (defaults.SELF_MODIFYING)."""
