"""The code a build or package runner runs from its project file, judged as bash_policy's
judge judges the command (this part of it, above bash_judge_code): `make`'s recipes and the
package scripts `npm run X`, `npm install`, `yarn X`... run (project_scripts.py), at each
directory the shell may be in or the one the runner moves to; a project file the command
writes, and what the runner's words or files leave unknown, is code not read; a makefile
`include`s is read as `cat` reads it (Read rules hold: `include .env`); the local code a
Python project's own files name, built with it by pip and uv (pip_projects), and those its
requirement files name (`-e ../x`, `-r` chains) or an install's package.json files take
(`file:`, `link:`: their lifecycle scripts run); `go generate`'s
`//go:generate` lines (go_generate.py)."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

from tether.permissions.bash_judge_scripts import ScriptJudge, script_text
from tether.permissions.bash_rules import MAX_NESTING
from tether.permissions.build_generators import cmake_build, generator_unread
from tether.permissions.conda_environments import (
    environment_channels,
    environment_files,
    pip_lines,
)
from tether.permissions.conda_unseen import listed_unseen
from tether.permissions.file_targets import GlobPath
from tether.permissions.glob_disk import disk_matches
from tether.permissions.go_generate import generate_text, generate_words
from tether.permissions.package_configs import config_unread
from tether.permissions.package_indexes import listed_indexes
from tether.permissions.package_sources import dependency_places, installs
from tether.permissions.package_workspaces import select_packages
from tether.permissions.paths import is_below
from tether.permissions.pip_projects import project_sources, uv_config_sources
from tether.permissions.pip_sources import (
    local_projects,
    requirement_files,
    requirement_lines,
    uv_project_dirs,
)
from tether.permissions.project_scripts import ProjectCode, project_code, project_text
from tether.permissions.runner_files import RUNNER_FILES
from tether.permissions.script import Invocation
from tether.permissions.shell_words import DYN, is_literal, program_name, readable, shown
from tether.permissions.verdict import Verdict, ask, deny

_MAX_REQUIREMENT_FILES = 32
"""The most requirement files one command's `-r` chain is read through."""


def _joined(directory: Path, word: str) -> str:
    """`word` as a path from `directory` (an absolute or `~` path, or a word known only as
    the program runs, as it is)."""
    if not is_literal(word) or word.startswith(("/", "~")):
        return word
    return str(directory / word)


class ProjectJudge(ScriptJudge):
    """The project side of the code judge."""

    def _project(self, inv: Invocation) -> list[Verdict]:
        """The recipes or package scripts a runner runs from its project file (`make`,
        `npm run X`: project_scripts), judged as bash with the same rules at each directory
        the shell may be in (or the one the runner moves to); a project file the command
        writes, and what the runner's words or files leave unknown, is code not read."""
        code = project_code(inv.argv, inv.assignments) if inv.role == "command" else None
        if code is None and inv.role == "command":
            built = cmake_build(inv.argv)
            if built is not None:
                return self._cmake_build(inv, *built)
            why = generator_unread(inv.argv)
            if why is not None:
                found = self._project_unread(program_name(inv.argv[0]), why)
                return [found] if found is not None else []
        if code is None:
            return self._generated(inv)
        name = readable(shown(inv.argv[0]))
        found = [self._project_unread(name, why) for why in code.unread]
        for cwd in self.places.cwds:
            base = cwd / code.directory if cwd is not None and code.directory else cwd
            real = self.files.real(base) if base is not None else None
            if real is None:
                continue  # code from a directory not known now (_working_code)
            if code.packages:  # `npm -w X`, `pnpm -r`: each package selected, from its own
                selected = select_packages(real, code.packages, script_text)
                found += [self._project_unread(name, why) for why in selected.unknown]
                for package in selected.directories:
                    found += self._project_at(code, name, package, moved=package != real)
                continue
            found += self._project_at(code, name, real)
        return [v for v in found if v is not None]

    def _cmake_build(
        self, inv: Invocation, directory: str, targets: tuple[str, ...]
    ) -> list[Verdict]:
        """`cmake --build DIR`: the build DIR holds run as its runner runs it (`make -C DIR`,
        `ninja -C DIR`); one of another kind, or a directory known only as it runs, is code
        not read."""
        runners: dict[str, None] = {}
        for cwd in self.places.cwds:
            base = cwd / directory if cwd is not None and is_literal(directory) else None
            real = self.files.real(base) if base is not None else None
            if real is None or directory.startswith("-"):
                runners["?"] = None
            elif (real / "build.ninja").exists():
                runners["ninja"] = None
            elif (real / "Makefile").exists() or not real.is_dir() or self.generating:
                runners["make"] = None
            else:
                runners["?"] = None
        found: list[Verdict] = []
        for runner in runners:
            if runner == "?":
                why = f"cmake --build runs the build in {readable(directory)}, not read"
                found += [v for v in (self._project_unread("cmake", why),) if v is not None]
            else:
                found += self._project(replace(inv, argv=(runner, "-C", directory, *targets)))
        return found

    def _project_at(
        self, code: ProjectCode, name: str, real: Path, *, moved: bool = False
    ) -> list[Verdict | None]:
        """`code` run in the directory `real` (`moved`: not where the shell is)."""
        found: list[Verdict | None] = []
        generated = code.kind in RUNNER_FILES or code.make is not None
        if code.directory and not real.is_dir() and generated and not self.generating:
            return []  # `ninja -C build` alone with no build directory: it fails
        if code.directory and not real.is_dir():  # `npm -w NAME`: a package by its name
            return [self._project_unread(name, f"{code.directory} is not a directory here")]
        start = real
        if code.make is None:
            real = _package_root(real, code.files)
        paths = [real / file for file in code.files]
        first = next((p for p in paths if p.exists()), None)
        if first is None and generated and self.generating:
            # `cmake -B build && ninja -C build`, `./configure && make`: a generator before it
            # may write the file, whose text is not there to read now.
            file = code.files[-1] if code.make is not None else code.files[0]
            why = f"no {file} is there now: another part of the command may write it"
            found.append(self._project_unread(name, why))
        if first is not None and generated and self.regenerator is not None:
            why = f"{self.regenerator} rewrites {first.name} before it runs: what is there now"
            found.append(self._project_unread(name, f"{why} does not hold"))
        read = paths if code.every or first is None else [first]
        # One the command writes may come first (GNU make reads ./makefile before
        # ./Makefile), before or after it runs.
        read += [p for p in paths if p not in read and self.was_written(p)]
        for path in paths:
            self.code_files.append((path, f"{name} runs {path.name}"))
        texts: list[str] = []
        for path in read:
            if self.was_written(path):
                what = f"{name} runs {path.name}, which this command writes before it runs"
                found.append(self._unread(what))
            else:
                texts.append(script_text(path) or "" if path.exists() else "")

        def text_of(file: str) -> str | None:
            path = real / file
            self.code_files.append((path, f"{name} runs {file}"))
            if self.was_written(path):
                found.append(self._unread(f"{name} runs {file}, which this command writes"))
                return ""
            return script_text(path) if path.exists() else None

        for config in code.configs:
            config_text = text_of(config)
            why = config_unread(config, config_text) if config_text is not None else None
            if why is not None:
                found.append(self._project_unread(name, why))
        if code.make is not None:

            def exists(file: str) -> bool:  # a file, or one a glob names (`prog.*`)
                if "*" not in file:
                    return (real / file).exists()
                folder, _, pattern = file.rpartition("/")
                return next((real / folder).glob(pattern), None) is not None

            def included(file: str) -> str | None:  # a read of the file, as `cat` reads it
                text = text_of(file)
                if text is not None or (real / file).exists():
                    found.append(self.files.read(real / file, explicit=True))
                return text

            text, unread = project_text(code, texts, included, exists)
        else:
            text, unread = project_text(code, texts, text_of, _nothing)
        found += [self._project_unread(name, why) for why in unread]
        if text is not None and self.nesting < MAX_NESTING:
            runs = " ".join(code.names) or "its first target"
            what = f"{name} runs {runs} from {', '.join(p.name for p in read if p.exists())}:"
            elsewhere = bool(code.directory) or real != start or moved
            move = f"cd -- {shlex.quote(str(real))} || exit\n" if elsewhere else ""
            package = code.make is None  # scripts run with node_modules/.bin on PATH
            found += self._judged_text(move + text, what, same_shell=False, package=package)
        return found

    def _generated(self, inv: Invocation) -> list[Verdict]:
        """`go generate`'s `//go:generate` lines (go_generate.py), judged as bash from each
        directory the shell may be in."""
        given = None
        if inv.role == "command" and inv.argv and program_name(inv.argv[0]) == "go":
            given = generate_words(inv.argv)
        if given is None:
            return []
        places, words = given
        found: list[Verdict | None] = []
        if not all(is_literal(place) and place for place in places):
            why = "go generate in a directory known only as it runs"
            return [v for v in (self._project_unread("go", why),) if v is not None]
        for cwd in self.places.cwds:
            for place in places:  # `go -C DIR generate`: go changes to DIR first
                cwd = cwd / place if cwd is not None else None
            real = self.files.real(cwd) if cwd is not None else None
            if real is None:
                found.append(self._project_unread("go", "go generate in a directory not known"))
                continue
            text, unread = generate_text(real, words)
            found += [self._project_unread("go", why) for why in unread]
            if text is not None and self.nesting < MAX_NESTING:
                what = "go generate runs its //go:generate lines:"
                found += self._judged_text(text, what, same_shell=False)
        return [v for v in found if v is not None]

    def _project_unread(self, name: str, why: str) -> Verdict | None:
        """Part of what a runner runs that tether does not read: asked where a Bash deny or
        ask rule exists, denied in bypassPermissions mode where a deny rule exists."""
        what = f"{name}: {why}"
        denying = self.ctx.rules.of("deny", "Bash")
        if denying and self.ctx.mode == "bypassPermissions":
            rule = denying[0].text
            return deny(f"{what}; it may run what deny rule {rule} forbids", rule)
        if denying:
            return ask(f"{what}; it may run what deny rule {denying[0].text} covers")
        asking = self.ctx.rules.of("ask", "Bash")
        if asking:
            rule = asking[0].text
            return ask(f"{what}; it may run what ask rule {rule} covers", rule, hard=True)
        return None

    def _projects(self, inv: Invocation) -> list[Verdict]:
        """The local code the workspace's Python projects an install or uv builds name in
        their own files (pip_projects: `pyproject.toml` dependencies, uv's sources, indexes
        and find-links, `uv.toml`), judged as the command's own words are."""
        found: list[Verdict] = []
        for word in (*local_projects(inv.argv), *uv_project_dirs(inv.argv)):
            uv = word in uv_project_dirs(inv.argv)
            for target in self.places.targets(word) if is_literal(word) else ():
                real = self.files.real(target) if isinstance(target, Path) else None
                if real is None or not real.is_dir() or not is_below(real, self.ctx.write_roots):
                    continue
                what = f"the project {readable(word)} names code from"
                places = project_sources(real)
                if uv:
                    places += uv_config_sources(real, self.ctx.workspace)
                found += self._loads(tuple(dict.fromkeys(places)), inv, what=what)
        return found

    def _requirements(self, inv: Invocation) -> list[Verdict]:
        """The local projects the workspace's requirement files name (`-e ../x`; `-r
        more.txt` read in turn, from the file's directory): code pip builds, judged as the
        command's own words are (one outside the workspace is asked by `_loads` itself)."""
        found: list[Verdict] = []
        pending = [(word, self.places.targets(word), False) for word in requirement_files(inv.argv)]
        pending += [(w, self.places.targets(w), True) for w in environment_files(inv.argv)]
        seen: set[Path] = set()
        while pending and len(seen) < _MAX_REQUIREMENT_FILES:
            word, targets, environment = pending.pop()
            for target in targets:
                if isinstance(target, GlobPath):  # `-r req*.txt`: each file it matches now
                    matches = disk_matches(target, self.files.real, self.ctx.list_directory)
                    if matches is None:
                        found.append(self.unseen(f"{readable(word)} may match any file"))
                    pending.append((word, list(matches or ()), environment))
                    continue
                real = self.files.real(target)
                inside = real is not None and is_below(real, self.ctx.write_roots)
                if real is None or real in seen or not inside:
                    if environment and real is None:
                        found.append(self._unread(f"{readable(word)} cannot be read: {_UNLISTED}"))
                    continue
                seen.add(real)
                text = script_text(real)
                if environment and text is None and (real.exists() or not self.sole):
                    # Not there, another command of the line may write it before conda
                    # reads it (alone, conda finds no file and installs nothing).
                    found.append(self._unread(f"{readable(word)} cannot be read: {_UNLISTED}"))
                if environment and text is not None:
                    channels = environment_channels(text)
                    what = f"{readable(word)} takes packages from"
                    found += self._loads(channels, inv, what=what)
                    found += [self._unread(f"{readable(word)}: {r}") for r in listed_unseen(text)]
                # A conda environment file's `pip:` section is a requirements file pip reads
                # from the environment file's directory (its `-e ./x` too).
                text = pip_lines(text) if environment and text is not None else text
                if text is None:
                    continue
                sources, files = requirement_lines(text)
                found += [ask(f"{readable(word)}: {reason}") for reason in listed_indexes(text)]
                if environment:
                    sources = tuple(_joined(real.parent, source) for source in sources)
                what = f"{readable(word)} names code from"
                found += self._loads(sources, inv, what=what)
                # pip reads `-r`/`-c` files relative to the file naming them (and expands
                # `${VAR}` in them: a name known only as pip runs).
                nested = [f if "${" not in f else DYN for f in files]
                found += self._loads(tuple(_joined(real.parent, f) for f in nested), inv, what=what)
                pending += [(f, [real.parent / f] if is_literal(f) else [], False) for f in nested]
        return found + self._projects(inv)

    def _dependencies(self, inv: Invocation) -> list[Verdict]:
        """The local dependencies (`file:`, `link:`) of the package.json files an install
        reads, from each directory the shell may be in (package_sources.py): their lifecycle
        scripts run; outside the workspace, code not seen."""
        if not installs(inv.argv):
            return []
        places = [
            str(place)
            for cwd in self.places.cwds
            if cwd is not None and (real := self.files.real(cwd)) is not None
            for place in dependency_places(real)
        ]
        return self._loads(tuple(places), inv, what="the install takes a package from")


_UNLISTED = "the packages conda installs from it are not seen"


def _package_root(start: Path, files: tuple[str, ...]) -> Path:
    """Where a package manager finds its project from `start`: the nearest directory up
    that holds one of `files` or a `node_modules` (npm, yarn, pnpm, bun, node --run and
    deno task all look up), or `start` when none does."""
    for place in (start, *list(start.parents)[:_MAX_UP]):
        if any((place / file).exists() for file in files) or (place / "node_modules").is_dir():
            return place
    return start


_MAX_UP = 64


def _nothing(_: str) -> bool:
    return False
