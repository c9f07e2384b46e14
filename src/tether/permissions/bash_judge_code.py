"""The code a Bash command's simple commands run beyond their words, judged as bash_policy's
judge judges the command (this part of it, below bash_judge_files): command lines in an unknown
program's arguments, code loaded from outside the workspace or from a path chosen as it runs
(outside_code.py, interpreter_scripts.py), packages an interpreter fetches, directories a module
serves or a container mounts, the application an env file names, code in the working
directory."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tether.permissions import steps
from tether.permissions.access import FileAccess
from tether.permissions.bash_rules import (
    MAX_NESTING,
    all_invocations,
    command_lines,
    rule_matches,
    script_verdict,
    texts_of,
)
from tether.permissions.container_mounts import bind_mounts, host_access
from tether.permissions.context import PermissionContext
from tether.permissions.data_urls import RUNTIMES, data_url_code
from tether.permissions.file_targets import Target
from tether.permissions.flask_env import env_app_commands
from tether.permissions.interpreter_code import CodeUse
from tether.permissions.module_urls import module_url
from tether.permissions.nix_launch import unnamed_program
from tether.permissions.nix_sources import unseen_nix_code
from tether.permissions.outside_code import URL_CODE
from tether.permissions.package_bins import bin_file, runner_bin
from tether.permissions.paths import is_below
from tether.permissions.pip_sources import fetched_code
from tether.permissions.run_files import run_line, runs_by_path
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_globbing import GlobState
from tether.permissions.shell_places import ShellPlaces
from tether.permissions.shell_words import (
    is_literal,
    program_name,
    readable,
    shown,
)
from tether.permissions.verdict import Verdict, ask, deny
from tether.permissions.wrappers import look_through

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
    tree_stays: bool
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
            what = f"{readable(shown(inv.argv[0]))} may run `{_shortened(readable(text))}`"
            subs = list(all_invocations(parse_command(text).invocations))
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
        reason = fetched_code(inv.own_argv)
        if reason is None:
            return []
        texts = texts_of(inv.own_argv, for_allow=True)
        rules = self.ctx.rules.of("allow", "Bash")
        named = any("pip" in r.text and any(rule_matches(r, t) for t in texts) for r in rules)
        return [] if named else [ask(reason)]

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

    def _env_apps(self, inv: Invocation) -> list[Verdict]:
        """The application flask imports from its env files (flask_env.py), judged as the
        code it runs, from each directory the shell may be in."""
        found: list[Verdict] = []
        for path, text in env_app_commands(inv.argv, self.places.cwds):
            what = f"flask imports FLASK_APP from {path}, which runs `{_shortened(text)}`"
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

    def _script(self, inv: Invocation, script: str) -> list[Verdict]:
        """The script file a shell runs or `.` reads (shells.script_file): its text, when it
        exists and can be read, judged as bash with the same rules (a deny rule holds in
        every mode against what it runs); the commands of a script tether does not read,
        and whatever no rule decides in one it reads, asked where a Bash deny or ask rule
        exists (bash_rules.script_verdict: denied in bypassPermissions mode)."""
        name = program_name(inv.argv[0])
        bypass = self.ctx.mode == "bypassPermissions"
        text, why = self._script_text(script, name)
        judged: list[Verdict] = []
        if text is not None:
            what = f"{name} runs {readable(shown(script))}:"
            judged = self._judged_text(text, what, same_shell=name in (".", "source"))
        found = script_verdict(
            self.ctx.rules, name, script, bypass=bypass and text is None, why=why
        )
        return [*judged, *([found] if found is not None else [])]

    def _run_file(self, inv: Invocation) -> list[Verdict]:
        """A file run as a program by its path, typed or through a wrapper or a program that
        runs it (run_files): judged as the command line the kernel runs for it (`sh FILE`
        reads the script, `python3 FILE` is python3's), its denials and asks said to be the
        file's. One this command writes before it runs, or whose path is not known before it
        runs, is code not read; a binary program is judged by its name."""
        program = inv.argv[0] if inv.argv and inv.role == "command" else ""
        if self.package_bins and program and is_literal(program) and "/" not in program:
            found_bin = self._package_bin(program)
            if found_bin is not None:  # found on the PATH npm builds: run by that path
                inv = replace(inv, argv=(found_bin.as_posix(), *inv.argv[1:]))
                found = self._run_file(replace(inv, role="command"))
                # what the file runs that a rule names; the runner's own rule covers the rest
                return [v for v in found if v.outcome == "deny" or v.rule is not None]
        if not program or not is_literal(program) or not runs_by_path(program):
            return []
        name = readable(shown(program))
        found: list[Verdict] = []
        for target in self.places.targets(program):
            real = self.files.real(target) if isinstance(target, Path) else None
            if real is None:
                found.append(self._unread(f"runs {name}, whose path is not known before it runs"))
                continue
            if self.was_written(real):
                found.append(self._unread(f"runs {name}, which this command writes before it runs"))
                continue
            line = run_line(real, inv.argv)
            if line is None:
                if not os.path.exists(real):  # one the command may write after (late_code)
                    self.code_files.append((real, f"runs {name}"))
                elif isinstance(target, Path):
                    found += self._linked_program(inv, target, real)
                continue
            self.code_files.append((real, f"runs {name}"))
            if self.nesting >= MAX_NESTING:
                found.append(self._unread(f"runs {name}, {MAX_NESTING} files deep"))
                continue
            inner = self.nested(self.cdpath)
            inner.places.cwds = dict(self.places.cwds)
            sub = look_through(line, inv.assignments, (), parse_code=parse_command, depth=0)
            verdict = inner.invocation(sub)
            if verdict.outcome in ("deny", "ask"):
                what = f"{name} runs as `{_shortened(readable(' '.join(line)))}`"
                found.append(replace(verdict, reason=f"{what}: {verdict.reason}"))
        return found

    def _package_bin(self, name: str) -> Path | None:
        """The program `name` is in a `node_modules/.bin` from where the shell may be up."""
        for cwd in self.places.cwds:
            real = self.files.real(cwd) if cwd is not None else None
            found = bin_file(name, real) if real is not None else None
            if found is not None:
                return found
        return None

    def runner_bins(self, inv: Invocation) -> list[Verdict]:
        """What a package runner runs by name (`npx jest`, `pnpm exec x`, `yarn x`:
        package_bins.py), judged with the runner's PATH: a file of a `node_modules/.bin` as a
        file run by its path."""
        words = runner_bin(inv.argv) if inv.role == "command" else None
        if words is None or self.nesting >= MAX_NESTING:
            return []
        inner = self.nested(self.cdpath)
        inner.places.cwds = dict(self.places.cwds)
        inner.package_bins = True
        sub = look_through(words, inv.assignments, (), parse_code=parse_command, depth=0)
        what = f"{readable(shown(inv.argv[0]))} runs {readable(shown(words[0]))} from its PATH"
        return [replace(v, reason=f"{what}: {v.reason}") for v in inner._run_file(sub)]

    def _linked_program(self, inv: Invocation, target: Path, real: Path) -> list[Verdict]:
        """A binary program run through a symbolic link under another name (`tools/ls ->
        /usr/bin/curl`): the rules that deny or ask of the program it leads to hold (the
        name as typed is judged too; what no rule names is left to it)."""
        if real.name == target.name or self.nesting >= MAX_NESTING:
            return []
        inner = self.nested(self.cdpath)
        inner.places.cwds = dict(self.places.cwds)
        line = (real.as_posix(), *inv.argv[1:])
        sub = look_through(line, inv.assignments, (), parse_code=parse_command, depth=0)
        verdict = inner.invocation(sub)
        if verdict.outcome == "deny" or (verdict.outcome == "ask" and verdict.rule):
            what = f"{readable(shown(inv.argv[0]))} is a link to {readable(real.as_posix())}"
            return [replace(verdict, reason=f"{what}: {verdict.reason}")]
        return []

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

    def _script_text(self, script: str, name: str) -> tuple[str | None, str]:
        """The text of the script, or None and why it is not read."""
        if not is_literal(script):
            return None, "a script chosen as it runs"
        reals = [
            self.files.real(target) if isinstance(target, Path) else None
            for target in self.places.targets(script)
        ]
        if not reals or None in reals:
            return None, "a script whose path is not known before it runs"
        texts: list[str] = []
        for real in (r for r in reals if r is not None):
            self.code_files.append((real, f"{name} runs {readable(shown(script))}"))
            if self.was_written(real):
                return None, "which this command writes before it runs"
            text = script_text(real) if self.nesting < MAX_NESTING else None
            if text is not None:
                texts.append(text)
            elif len(reals) == 1 or real.exists():
                # Where the shell may be elsewhere (`cd d && sh x`), a script that is not
                # there runs nothing from there.
                return None, "which tether cannot read"
        if not texts:
            return None, "which tether cannot read"
        return "\n".join(dict.fromkeys(texts)), ""

    def _judged_text(
        self, text: str, what: str, *, same_shell: bool, package: bool = False
    ) -> list[Verdict]:
        """`text` judged as a command line run from where the shell is (with a package
        runner's PATH, `package`): the denials and asks of what it runs, each said to be in
        the script."""
        steps.spend(len(text) // 4)  # read as shell (steps.py)
        inner = self.nested(self.cdpath or "CDPATH" in text)
        inner.places.cwds = dict(self.places.cwds)
        inner.package_bins = package or self.package_bins
        script = parse_command(text)
        verdicts = [inner.unseen(problem) for problem in script.problems]
        inner.globbing.foresee(script.invocations)
        verdicts += [inner.invocation(sub) for sub in script.invocations]
        if same_shell:
            self.places.cwds = dict(inner.places.cwds)
        return [
            replace(v, reason=f"{what} {v.reason}") if v.reason else v
            for v in verdicts
            if v.outcome in ("deny", "ask")
        ]

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


def script_text(path: Path) -> str | None:
    """The text of a script file of at most `MAX_SCRIPT` bytes; None when it is no such file
    or cannot be read as text."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SCRIPT + 1)
    except OSError:
        return None
    if len(data) > MAX_SCRIPT or b"\0" in data:
        return None
    try:
        return data.decode()
    except UnicodeDecodeError:
        return None


MAX_SCRIPT = 64 * 1024
"""The largest script file whose text is judged (a larger one is not read)."""


def _shortened(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
