"""The code files a Bash command's simple commands run, judged as bash_policy's judge judges
the command (this part of it, between bash_judge_code and bash_judge_projects): the text of
the script a shell runs or `.` reads, judged as bash with the same rules; a file run by its
path, as the command line the kernel runs for it (a link to a program as that program); the
modules Python imports by name from where it runs (python_imports.py); and each such file the
same command writes (before or after), cannot read, or finds outside the workspace: code not
read."""

from __future__ import annotations

import os
from dataclasses import replace
from fnmatch import fnmatchcase
from importlib.machinery import all_suffixes
from pathlib import Path

from tether.permissions import steps
from tether.permissions.bash_judge_code import CodeJudge, shortened
from tether.permissions.bash_rules import MAX_NESTING, all_invocations, script_verdict
from tether.permissions.dangerous_variables import module_path_entries
from tether.permissions.launchers import fetched_package
from tether.permissions.package_bins import bin_file, npm_exec_fetches, package_dirs
from tether.permissions.paths import is_below
from tether.permissions.python_imports import python_import_files
from tether.permissions.run_files import run_line, runs_by_path
from tether.permissions.runner_argv import RunnerCall, npm_command, runner_calls
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_steady import steady_pwd
from tether.permissions.shell_words import is_literal, program_name, readable, shown
from tether.permissions.verdict import Verdict, ask
from tether.permissions.wrappers import look_through


class ScriptJudge(CodeJudge):
    """Scripts, files run by path and modules imported by name."""

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
                if not os.path.exists(real) and not is_below(real, self.ctx.write_roots):
                    # Nothing there now: what runs is whatever is put there first.
                    found.append(
                        self._unread(f"runs {name}, outside the workspace and not there: not seen")
                    )
                elif not os.path.exists(real):  # one the command may write after (late_code)
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
                what = f"{name} runs as `{shortened(readable(' '.join(line)))}`"
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
        """What a package runner runs by name or in a shell command line (`npx jest`, `npm
        --prefix d exec x`, `pnpm -r exec x`, `npx -c 'x'`: runner_argv.py), judged with the
        runner's PATH from each package directory it may run in: a file of a
        `node_modules/.bin` as a file run by its path. Directories not known before it runs,
        or too many to look through, are code not read."""
        if inv.role != "command" or not inv.argv or self.nesting >= MAX_NESTING:
            return []
        runner = readable(shown(inv.argv[0]))
        found: list[Verdict] = []
        for call in runner_calls(inv.argv):
            places = self._runner_places(call)
            if places is None:
                what = f"{runner} runs in package directories tether does not know before it runs"
                found.append(self._unread(what))
                continue
            inner = self.nested(self.cdpath)
            inner.places.cwds = places
            inner.package_bins = True
            if call.words and fetched_package(inv.argv) is None:
                found += self._registry_package(inv.argv, call.words[0], places)
            if call.words:
                sub = look_through(
                    call.words, inv.assignments, (), parse_code=parse_command, depth=0
                )
                what = f"{runner} runs {readable(shown(call.words[0]))} from its PATH"
                found += [replace(v, reason=f"{what}: {v.reason}") for v in inner._run_file(sub)]
            if call.code is not None:
                what = f"{runner} runs `{shortened(readable(call.code))}` with its PATH:"
                found += inner._judged_text(call.code, what, same_shell=False, package=True)
        return found

    def _registry_package(
        self, argv: tuple[str, ...], name: str, places: dict[Path | None, None]
    ) -> list[Verdict]:
        """`npm exec cowsay` where no runner PATH holds cowsay: a package npm fetches from
        its registry and runs (package_bins.npm_exec_fetches), code not seen unless a rule
        names what fetches it (`Bash(npm exec *)`)."""
        dirs = [p for p in places if p is not None]
        if not is_literal(name) or not npm_exec_fetches(argv, name, dirs):
            return []
        if program_name(argv[0]) == "npx":
            at, typed = 0, "npx"
        else:
            at = next((i for i, w in enumerate(argv) if i and npm_command(w) == "exec"), 1)
            typed = "npm exec"
        reason = f"`{typed} {readable(name)}` runs a package fetched from a registry, code"
        return self._fetched_package(argv, f"{reason} tether cannot see", (at,))

    def _runner_places(self, call: RunnerCall) -> dict[Path | None, None] | None:
        """The directories a runner's call may find programs from: where the shell is, the
        package directories it names there, and with `anywhere` each one below holding a
        `node_modules/.bin`; None when one is not known before it runs."""
        places: dict[Path | None, None] = {}
        for cwd in self.places.cwds:
            real = self.files.real(cwd) if cwd is not None else None
            if real is None:
                return None
            places[real] = None
            anywhere = call.anywhere
            for word in call.dirs:
                if not is_literal(word):
                    return None
                named = self.files.real(real / word)
                if named is None:
                    return None
                if named.is_dir():
                    places[named] = None
                else:  # a workspace's name, not its path: any package
                    anywhere = True
            below = package_dirs(real) if anywhere else []
            if below is None:
                return None
            places.update(dict.fromkeys(below))
        return places

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
        steady = steady_pwd(text, all_invocations(script.invocations))
        inner.places.back = inner.places.back and steady
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

    def _imports(self, inv: Invocation) -> list[Verdict]:
        """The files Python may import a module it is told to by name from (python_imports):
        one that is there, or that this command writes, is code run from that path, judged as
        `python3 FILE` is (`_loads`); one that is not there runs nothing from here, unless
        the command writes it later (late_code)."""
        found: list[Verdict] = []
        module_path = _module_path(inv, self.steady_pwd)
        words = python_import_files(inv.own_argv, module_path) if inv.role == "command" else ()
        for word in words:
            if any(c in word for c in "*?["):  # `unittest discover -p 'test*.py'`
                found += self._imported_pattern(word)
                continue
            for target in self.places.targets(word):
                real = self.files.real(target) if isinstance(target, Path) else None
                if real is None or os.path.lexists(real) or self.was_written(real):
                    found += self._loads((word,), inv, what="imports code from")
                    break
                self.code_files.append((real, f"imports code from {readable(word)}"))
        return found

    def own_module_path(self, name: str, value: str) -> bool:
        """Whether a module path (`PYTHONPATH=src:.`) adds only the workspace's own code, so
        the command is judged as run without it (the modules it names found along it, as
        Python finds them: `_imports`): each directory leads inside the workspace (symlinks
        followed, from each place the shell may be), is not code installed into it (a
        virtual environment's site-packages, node_modules) or hidden, none is one a Read rule
        denies, and no earlier part of the command wrote into one. The modules Python imports
        from it unasked (`sitecustomize`) are code the command must not write later."""
        entries = module_path_entries(name, value, steady_pwd=self.steady_pwd)
        if entries is None:
            return False
        for entry in entries:
            if not self.places.inside(entry):
                return False
            for target in self.places.targets(entry):
                real = self.files.real(target) if isinstance(target, Path) else None
                if real is None or not self._own_directory(real) or self._read_denied(real):
                    return False
                if any(is_below(w, [real]) for w in self.written):
                    return False
                for module in _STARTUP_MODULES:
                    self.code_files.append((real / module, f"Python imports {module} from {entry}"))
        return True

    def startup_code(self, inv: Invocation, read_only: bool) -> list[Verdict]:
        """Python's `site` imports `sitecustomize` and `usercustomize` from the module path
        before any program runs: one in a directory of the command's PYTHONPATH is run by every
        Python program the command starts (`pip --version`, a console script, one a recipe
        runs), code tether does not read. Judged as a script a shell runs (asked where a Bash
        deny or ask rule exists), and, for a command allowed as read-only, asked."""
        if inv.role != "command" or not inv.argv:
            return []
        found: list[Verdict] = []
        program = program_name(inv.argv[0])
        for entry in _module_path(inv, self.steady_pwd):
            for target in self.places.targets(entry):
                real = self.files.real(target) if isinstance(target, Path) else None
                module = _startup_module(real) if real is not None else None
                if module is None:
                    continue
                path = f"{entry.rstrip('/')}/{module}"
                why = "which Python imports at start-up in every Python program it starts"
                bypass = self.ctx.mode == "bypassPermissions"
                verdict = script_verdict(self.ctx.rules, program, path, bypass=bypass, why=why)
                if verdict is None and read_only:
                    verdict = ask(f"{program} runs {readable(path)}, {why}: not read-only")
                found += [verdict] if verdict is not None else []
        return found

    def _read_denied(self, directory: Path) -> bool:
        """Whether a Read rule denies the directory, or a module directly in it (what Python
        reads from it is its modules; one further down is judged when a command names it)."""
        return any(
            self.files.read(t).outcome == "deny" for t in (directory, directory / "module.py")
        )

    def _own_directory(self, real: Path) -> bool:
        for root in self.ctx.write_roots:
            if is_below(real, [root]):
                parts = real.relative_to(root).parts
                return _INSTALLED.isdisjoint(parts) and not any(p.startswith(".") for p in parts)
        return False

    def _imported_pattern(self, word: str) -> list[Verdict]:
        """Files Python imports by a pattern of names (unittest's discovery): one the command
        writes before is code not read."""
        for cwd in self.places.cwds:
            real = self.files.real(cwd) if cwd is not None else None
            pattern = (real / word).as_posix() if real is not None else None
            if pattern is None or any(fnmatchcase(w.as_posix(), pattern) for w in self.written):
                return [
                    self._unread(f"imports code from {readable(word)}, which this command writes")
                ]
        return []


_INSTALLED = frozenset({"site-packages", "dist-packages", "node_modules", "__pypackages__"})
"""Directories holding code installed into the workspace, not its own."""
_STARTUP_MODULES = ("sitecustomize.py", "usercustomize.py")
"""What Python's `site` imports from the module path before any program runs."""


def _startup_module(directory: Path) -> str | None:
    """The start-up module (`sitecustomize.py`, a package, a compiled one) `directory` holds."""
    for module in ("sitecustomize", "usercustomize"):
        names = [f"{module}/__init__{s}" for s in all_suffixes()]
        for name in (*(module + s for s in all_suffixes()), *names):
            if (directory / name).is_file():
                return name
    return None


def _module_path(inv: Invocation, steady_pwd: bool) -> tuple[str, ...]:
    """The module path the command is given (PYTHONPATH's directories), where it is written
    as it is."""
    for name, value in reversed(inv.assignments):
        entries = module_path_entries(name, value, steady_pwd=steady_pwd)
        if entries is not None:
            return entries
    return ()


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
