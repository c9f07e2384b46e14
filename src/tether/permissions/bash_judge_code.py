"""The code a Bash command's simple commands run beyond their words, judged as bash_policy's
judge judges the command (this part of it, below bash_judge_files): command lines in an unknown
program's arguments, code loaded from outside the workspace or from a path chosen as it runs
(outside_code.py, interpreter_scripts.py), packages an interpreter fetches, directories a module
serves or a container mounts, the application an env file names, code in the working
directory."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tether.permissions import steps
from tether.permissions.access import FileAccess
from tether.permissions.bash_rules import (
    all_invocations,
    command_lines,
    rule_matches,
    script_verdict,
    texts_of,
)
from tether.permissions.build_generators import machine_lookups
from tether.permissions.container_mounts import bind_mounts, host_access
from tether.permissions.context import PermissionContext
from tether.permissions.data_urls import RUNTIMES, data_url_code
from tether.permissions.file_targets import Target
from tether.permissions.flask_env import env_app_commands
from tether.permissions.interpreter_code import CodeUse
from tether.permissions.launchers import fetched_package
from tether.permissions.module_urls import module_url
from tether.permissions.nix_launch import unnamed_program
from tether.permissions.nix_sources import unseen_nix_code
from tether.permissions.outside_code import URL_CODE
from tether.permissions.paths import is_below
from tether.permissions.pip_sources import fetched_code, pip_module
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_globbing import GlobState
from tether.permissions.shell_places import ShellPlaces
from tether.permissions.shell_steady import steady_pwd
from tether.permissions.shell_words import (
    is_literal,
    program_name,
    readable,
    shown,
)
from tether.permissions.verdict import Verdict, ask, deny

if TYPE_CHECKING:
    from tether.permissions.bash_judge_files import FileJudge


class CodeJudge:
    """The code side of bash_policy's judge; the judge supplies its state and the methods
    below that are only declared here."""

    ctx: PermissionContext
    files: FileAccess
    places: ShellPlaces
    globbing: GlobState
    read_only: bool
    cdpath: bool
    nesting: int
    sole: bool
    generating: bool
    regenerator: str | None
    tree_stays: bool
    steady_pwd: bool
    plain_git: bool
    written: set[Path]
    """The files the command writes, as judged so far (shared with nested judges);
    `ANY_WRITTEN` among them when git writes files of the tree it cannot name."""
    code_files: list[tuple[Path, str]]
    """Code files the command runs, each with what runs it: one the command writes (before
    or after, in a loop or in the background) is code not read (`late_code`)."""
    package_bins: bool
    """Its commands run with a package runner's PATH: a bare name may be a program of a
    `node_modules/.bin` (package_bins.py)."""

    def invocation(self, inv: Invocation, *, late: bool = False, vary: bool = True) -> Verdict:
        raise NotImplementedError

    def unseen(self, problem: str) -> Verdict:
        raise NotImplementedError

    def _near_rules(self) -> bool:
        raise NotImplementedError

    def inline_code(self, inv: Invocation, use: CodeUse) -> list[Verdict]:
        """Code an interpreter runs that is no file (inline_verdicts.py)."""
        raise NotImplementedError

    def _targets(self, inv: Invocation, word: str) -> list[Target]:
        raise NotImplementedError

    def nested(self, cdpath: bool) -> FileJudge:
        """A judge for a command line one level down in an unknown program's arguments."""
        raise NotImplementedError

    def _argument_commands(self, inv: Invocation) -> list[Verdict]:
        """Command lines in the arguments of a program tether knows nothing about (`npm exec
        -c 'cat .env'`, `cmake -E env sh -c 'echo x > .git/config'`), which it may run: the
        files they read and write are judged as an allowed command's are (deny and ask rules,
        writes of files that change later sessions, writes outside the workspace), whatever
        rule allowed the program; what their words run is left to the Bash rules
        (bash_rules.later_commands). Four levels deep, each from where the shell is, a `cd`
        inside one moving only what follows it there."""
        found: list[Verdict] = []
        for text in (t for arg in inv.argv[1:] for t in command_lines(arg)):
            steps.spend(len(text) // 4)  # read as shell (steps.py)
            cdpath = self.cdpath or "CDPATH" in text
            inner = self.nested(cdpath)
            inner.places.cwds = dict(self.places.cwds)
            what = f"{readable(shown(inv.argv[0]))} may run `{shortened(readable(text))}`"
            subs = list(all_invocations(parse_command(text).invocations))
            inner.places.back = inner.places.back and steady_pwd(text, subs)
            inner.globbing.foresee(subs)  # what runs there, in any order
            inner.places.options = inner.globbing.anywhere | self.places.options
            for sub in subs:
                verdicts = inner._files(sub, explicit=True)
                found += [
                    replace(v, reason=f"{what}: {v.reason}")
                    for v in verdicts
                    if v.outcome in ("deny", "ask")
                ]
                inner.places.track(sub)
        return found

    def _mounted(self, inv: Invocation, explicit: bool) -> list[Verdict]:
        """Host directories bound into a container (container_mounts): read whole, and
        written unless read-only."""
        access = host_access(inv.argv)
        verdicts = [] if access is None else [self.unseen(access)]
        mounts = bind_mounts(inv.argv)
        verdicts += self._loads(tuple(m.source for m in mounts), what="hands the container")
        for mount in mounts:
            for target in self.places.targets(mount.source):
                verdicts.append(self.files.read(target, explicit=explicit, recursive=True))
                if mount.writable:
                    self.read_only = False
                    verdicts.append(self.files.write(target, explicit=explicit))
        return verdicts

    def _served(self, words: tuple[str, ...], explicit: bool) -> list[Verdict]:
        """Directories served to whoever connects (`python3 -m http.server`), archived or
        sent to a builder (`docker build`): read whole."""
        return [
            self.files.read(target, explicit=explicit, recursive=True)
            for word in words
            for target in self.places.targets(word)
        ]

    def _fetched(self, inv: Invocation) -> list[Verdict]:
        """Code fetched from a package index under an interpreter's name: asked unless the
        allow rule names the installer."""
        package = fetched_package(inv.own_argv)
        if package is not None:
            return self._fetched_package(inv.own_argv, *package)
        reason = fetched_code(inv.own_argv)
        if reason is None:
            return []
        # A rule naming pip covers the same install run as a module (`Bash(pip *)` allows
        # `python3 -m pip install X` as it allows `pip install X`).
        typed = ("pip", *(pip_module(inv.own_argv) or ()))
        texts = [*texts_of(inv.own_argv, for_allow=True), *texts_of(typed, for_allow=True)]
        rules = self.ctx.rules.of("allow", "Bash")
        named = any("pip" in r.text and any(rule_matches(r, t) for t in texts) for r in rules)
        return [] if named else [ask(reason)]

    def _fetched_package(
        self, argv: tuple[str, ...], reason: str, words: tuple[int, ...]
    ) -> list[Verdict]:
        """A package fetched and run (`pnpm dlx X`): code not seen, which may run anything,
        unless an allow rule names the subcommand that fetches it (`Bash(pnpm dlx *)`,
        `Bash(uvx *)`; `Bash(pnpm *)` names pnpm, not what its registry serves)."""
        other = tuple("\x00" if i in words else word for i, word in enumerate(argv))
        texts, others = texts_of(argv, for_allow=True), texts_of(other, for_allow=True)
        for rule in self.ctx.rules.of("allow", "Bash"):
            if any(rule_matches(rule, t) for t in texts) and not (
                words and any(rule_matches(rule, t) for t in others)
            ):
                return []
        return [self.unseen(reason)]

    def _loads(
        self, words: tuple[str, ...], inv: Invocation | None = None, what: str = "runs code from"
    ) -> list[Verdict]:
        """Code a program imports from the files it is given (pytest's tests and conftest.py, an
        interpreter's script; a container's bind mounts, `what`): outside the workspace it is
        code no rule has seen, asked; a file a Read rule denies is denied, as reading it is."""
        found: list[Verdict] = []
        for word in words:
            code = data_url_code(word) if inv is not None and is_literal(word) else None
            runtime = RUNTIMES.get(program_name(inv.argv[0])) if inv is not None else None
            if inv is not None and code is not None and runtime is not None:
                # code in the URL itself: judged as the same runtime's `-e CODE`
                flag, language = runtime
                found.extend(self.inline_code(inv, CodeUse(flag, code, language=language)))
                continue
            url = module_url(word) if is_literal(word) else None
            if url is not None and URL_CODE.match(url):
                where = "given inline" if url.startswith("data:") else "fetched as it runs"
                found.append(self._unread(f"{what} {readable(word[:60])}, {where}: not seen"))
                continue
            # A path another program names (find's `{}`) is each path it names now.
            targets = self._targets(inv, word) if inv is not None else self.places.targets(word)
            for target in targets:
                shown = readable(word) if is_literal(word) else str(target)
                read = self.files.read(target)
                if read.outcome == "deny":  # the program reads the code it runs
                    found.append(replace(read, reason=f"{what} {shown}: {read.reason}"))
                place = target if isinstance(target, Path) else target.prefix
                real = self.files.real(place) if place is not None else None
                if real is not None and isinstance(target, Path):
                    self.code_files.append((real, f"{what} {shown}"))
                if real is None or not is_below(real, self.ctx.write_roots):
                    where = "outside the workspace" if is_literal(word) else "chosen as it runs"
                    found.append(self._unread(f"{what} {readable(word)}, {where}: not seen"))
        return found

    def _machine_lookups(self, inv: Invocation) -> list[Verdict]:
        """meson's machine files named by a relative path its working directory may not
        hold: it looks for them outside the workspace then (build_generators), code judged
        as what it loads."""
        found: list[Verdict] = []
        for name, places in machine_lookups(inv.argv, inv.assignments):
            if not all(self._is_there(target) for target in self._targets(inv, name)):
                found.extend(self._loads(places, inv, f"looks up the machine file {name} in"))
        return found

    def _is_there(self, target: Target) -> bool:
        """Whether `target` is known to be there now (its directory lists its name)."""
        real = self.files.real(target) if isinstance(target, Path) else None
        if real is None:
            return False
        names = self.ctx.list_directory(real.parent)
        return names is not None and real.name in names

    def _env_apps(self, inv: Invocation) -> list[Verdict]:
        """The application flask imports from its env files (flask_env.py), judged as the
        code it runs, from each directory the shell may be in."""
        found: list[Verdict] = []
        for path, text in env_app_commands(inv.argv, self.places.cwds):
            what = f"flask imports FLASK_APP from {path}, which runs `{shortened(text)}`"
            for sub in all_invocations(parse_command(text).invocations):
                verdict = self.nested(self.cdpath).invocation(sub)
                if verdict.outcome in ("deny", "ask"):
                    found.append(replace(verdict, reason=f"{what}: {verdict.reason}"))
        return found

    def _working_code(self, program: str) -> list[Verdict]:
        """A program that runs code from the directory it starts in (working_code.py), judged
        at each directory the shell may be in then: outside the workspace, or not known before
        the command runs, that code is unseen."""
        found: list[Verdict] = []
        name = readable(shown(program))
        for cwd in self.places.cwds:
            real = self.files.real(cwd) if cwd is not None else None
            if real is None:
                found.append(ask(f"{name} runs code from a working directory chosen as it runs"))
            elif not is_below(real, self.ctx.write_roots):
                found.append(
                    ask(
                        f"{name} runs code from its working directory {real}, outside the workspace"
                    )
                )
        return found

    def _unnamed(self, inv: Invocation) -> list[Verdict]:
        """What nix runs where tether cannot name the program (nix_launch) or the code is
        not the registry's nixpkgs (nix_sources)."""
        if inv.role != "command":
            return []
        named = unnamed_program(inv.argv)
        unseen = None if named is not None else unseen_nix_code(inv.argv, inv.assignments)
        unnamed = named or unseen
        if unnamed is None:
            return []
        found = script_verdict(
            self.ctx.rules,
            program_name(inv.argv[0]),
            unnamed,
            bypass=self.ctx.mode == "bypassPermissions",
            why="code that is not the registry's nixpkgs, which tether does not read"
            if unseen
            else "whose programs tether cannot name",
        )
        return [found] if found is not None else []

    def was_written(self, real: Path) -> bool:
        """Whether the command writes the file `real`: by name, or as one of the files git
        writes into the tree from a commit, patch or stash (`git apply x.patch && bash
        tools/ok.sh`; git_tree_writes), which may be any."""
        return real in self.written or (
            ANY_WRITTEN in self.written and is_below(real, self.ctx.write_roots)
        )

    def late_code(self) -> list[Verdict]:
        """Code files the command runs that it also writes, wherever in it: not read (the
        text judged was what the file held before)."""
        found: list[Verdict] = []
        for real, what in self.code_files:
            if self.was_written(real):
                found.append(self._unread(f"{what}, which this command writes"))
        return found

    def _unread(self, what: str) -> Verdict:
        """Code tether cannot read: asked, and where a Bash deny rule exists denied in
        bypassPermissions mode (deny rules still hold there against what is not read); where
        an ask rule exists the ask stands there too."""
        denying = self.ctx.rules.of("deny", "Bash")
        if denying and self.ctx.mode == "bypassPermissions":
            rule = denying[0].text
            return deny(f"{what}; it may run what deny rule {rule} forbids", rule)
        asking = self.ctx.rules.of("ask", "Bash")
        if asking and not denying:
            rule = asking[0].text
            return ask(f"{what}; it may run what ask rule {rule} covers", rule, hard=True)
        return ask(what)


ANY_WRITTEN = Path("/", "\0any")
"""In `CodeJudge.written`: git writes files of the working tree it cannot name, any of them."""


def shortened(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
