"""Project instructions for the system prompt: CLAUDE.md, AGENTS.md and their `@path` imports.

Read as Claude Code reads them, so a repository set up for it (or for another agent reading
AGENTS.md) works as is: the user's `~/.claude/CLAUDE.md`, then `CLAUDE.md` and
`.claude/CLAUDE.md` in each directory above the repository root but `/` (with no repository,
above the workspace), then from the repository root down to the working directory `CLAUDE.md`,
`.claude/CLAUDE.md` and `AGENTS.md` in each directory, then `CLAUDE.local.md` in each of the
same directories. The project root used by settings, sessions and trust does not change.

A project's files can be written by anything that writes the workspace (a sandboxed command, a
cloned repository), and what they import goes into the next session's prompt. So, as Claude
Code asks about "external imports" once per project: a project file's import that resolves
outside the workspace (`@~/notes.md`, `@../x.md`, or a link leading out, the project file
itself included) is read only once the user approved external imports for the workspace, and
never in an untrusted one. Whoever wrote the file, no import reads a credential location
(`home_files.HOME_SECRETS`: keys, tokens, histories), a process's files under `/proc`, `/sys`
or `/dev`, or a file a Read deny rule covers (`refuse`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tether.config.import_syntax import find_imports, strip_comments
from tether.config.rule_paths import rule_files, scoped_rules
from tether.home_files import HOME_SECRETS
from tether.slotted import Slotted
from tether.text_files import (
    INSTRUCTIONS_MAX_CHARS,
    INSTRUCTIONS_READ_BYTES,
    UnreadableFile,
    read_file_bytes,
    read_text_file,
    real_path,
)

MAX_IMPORT_DEPTH = 4
"""How deep `@path` imports nest: a file read directly is level 0."""

MAX_CHARS = INSTRUCTIONS_MAX_CHARS
"""The assembled text is cut here: instructions share the context window with the work."""

MAX_FILE_BYTES = INSTRUCTIONS_READ_BYTES
"""What is read of one file: past it the text would be cut anyway."""

SYSTEM_DIRS = (Path("/proc"), Path("/sys"), Path("/dev"))
"""Never read: a process's memory and environment (`/proc/self/environ` holds the API key),
devices, kernel state."""

PROJECT_FILES = ("CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md")
"""Read in each directory from the repository root down to the working directory."""

PARENT_FILES = ("CLAUDE.md", ".claude/CLAUDE.md")
"""Read in each directory above the repository root (or, without one, above the workspace)
but `/`: Claude Code "recurses up to (but not including) the root directory / and reads any
CLAUDE.md or CLAUDE.local.md files it finds", whether or not there is a repository. AGENTS.md
is a repository's own, and not looked for above it."""


@dataclass(frozen=True)
class Instructions:
    """What goes into the system prompt, and what the user should hear about."""

    text: str = ""
    """Every file's content in reading order, each headed by its path (relative to the workspace,
    or `~/...`); empty when there are none."""
    files: tuple[Path, ...] = ()
    """The files read, in order, imports right after the file that imports them."""
    problems: tuple[str, ...] = ()
    """Missing or unreadable imports, cycles, imports nested too deep, the size cap, imports
    refused: each once."""
    external: tuple[str, ...] = ()
    """Project files' imports (and linked project files) outside the workspace, left out for
    want of the user's approval of external imports, as shown (`~/notes.md`)."""
    imported_by: tuple[tuple[Path, Path], ...] = field(default=(), compare=False)
    """Each file read through an `@path` import, with the file that imports it (Claude Code's
    `parent_file_path` of an InstructionsLoaded hook whose `load_reason` is `include`)."""
    scoped_rules: tuple[tuple[Path, Path], ...] = field(default=(), compare=False)
    """The rules that name `paths`, each with the directory its globs are relative to (the one
    holding its `.claude`; the workspace for the user's): not in `text`, told to the model when
    it reads or edits a file they match (`tether.cli.scoped_rules`)."""
    sizes: tuple[tuple[str, int], ...] = field(default=(), compare=False)
    """Each file as shown, with the characters it takes in `text` (after the cut): what to
    name when the instructions leave the conversation too little of the window."""


def load_instructions(
    workspace: Path,
    *,
    home: Path,
    cwd: Path | None = None,
    trusted: bool = True,
    external_imports: bool = False,
    refuse: Callable[[Path], bool] | None = None,
    admits: Callable[[Path], bool] | None = None,
    local_from: Path | None = None,
) -> Instructions:
    """Read the instruction files that apply to `cwd` (the workspace unless given).

    `local_from`: the main workspace of a task worktree (the workspace): the worktree's
    checked-in files are its own, but the `CLAUDE.local.md` files (which git does not carry
    into a worktree) are the main workspace's, each read for the worktree's directory at the
    same place, and the directories above are those above the main workspace (not the main
    workspace itself, whose checked-in files the worktree has).

    `home` is the user's home directory (for `~/.claude/CLAUDE.md` and `@~/...` imports). The
    repository root is the nearest ancestor of `cwd` holding `.git`; without one, the workspace.
    A project file's import outside the workspace is read only with `external_imports` (the
    user's approval) in a `trusted` workspace; the same holds for a project file that is a link
    leading out of the directory it was found in (the workspace, for one inside it). `refuse`
    says whether a Read deny rule covers an import (never read then). `admits` says whether a
    file found by name is of a source the session reads (`--setting-sources`); its imports go
    with it.
    """
    workspace = workspace.resolve()
    home = home.resolve()
    cwd = (cwd or workspace).resolve()
    reader = _Reader(workspace, home, trusted=trusted, external_ok=external_imports)
    reader.refuse = refuse
    reader.admits = admits
    reader.read_top(home / ".claude" / "CLAUDE.md", "user instructions, for every project")
    for rule in rule_files(home / ".claude" / "rules", reader.problems):
        reader.read_top(rule, "user rules, for every project")
    reader.scope_rules(home / ".claude" / "rules", workspace)
    above, directories = _above_and_root_to(cwd, workspace)
    main = local_from.resolve() if local_from is not None else None
    if main is not None:
        above = _above_and_root_to(main, main)[0]
    for directory in above:
        for name in PARENT_FILES:
            if directory == home and name == ".claude/CLAUDE.md":
                continue  # the user's own, read first
            _read_above(reader, directory / name, "instructions of a parent directory")
    for directory in directories:
        area = workspace if directory.is_relative_to(workspace) else directory
        for name in PROJECT_FILES:
            reader.read_top(directory / name, "project instructions", area=area)
        for rule in rule_files(directory / ".claude" / "rules", reader.problems):
            reader.read_top(rule, "project rules", area=area)
        reader.scope_rules(directory / ".claude" / "rules", directory)
    # Claude Code reads CLAUDE.local.md in every directory it reads CLAUDE.md in.
    for directory in above:
        local = directory / "CLAUDE.local.md"
        _read_above(reader, local, "local instructions of a parent directory, not checked in")
    for directory in directories:
        area = workspace if directory.is_relative_to(workspace) else directory
        local = directory / "CLAUDE.local.md"
        if main is not None and directories:  # the main workspace's, at the same place
            local = main / directory.relative_to(directories[0]) / "CLAUDE.local.md"
            area = main
        reader.read_top(local, "local project instructions, not checked in", area=area)
    return reader.result()


def _above_and_root_to(cwd: Path, workspace: Path) -> tuple[list[Path], list[Path]]:
    """The directories above the repository root (without one, above the workspace) but `/`,
    from the top; then those from the repository root down to `cwd`."""
    root = next((d for d in (cwd, *cwd.parents) if (d / ".git").exists()), None)
    if root is None:
        root = workspace if cwd.is_relative_to(workspace) else cwd
    top_down = list(reversed((cwd, *cwd.parents)))
    above = [d for d in top_down if not d.is_relative_to(root) and d != d.parent]
    return above, [d for d in top_down if d.is_relative_to(root)]


def _read_above(reader: _Reader, path: Path, what: str) -> None:
    """A file of a directory above the project, read when the user or root owns it: a
    directory others can write to (`/tmp`, a shared folder) may hold one anybody planted."""
    try:
        owner = path.stat().st_uid
    except OSError:
        return  # none there (or unreadable: said nowhere, as for a missing CLAUDE.md)
    if owner not in (0, os.getuid()):
        reader.problems.append(f"{path} not read: another user owns it")
        return
    reader.read_top(path, what, area=path.parent)


class _Part(Slotted):
    __slots__ = ("content", "heading", "shown")
    heading: str
    content: str
    shown: str

    def __init__(self, heading: str, content: str, shown: str) -> None:
        self.heading = heading
        self.content = content
        self.shown = shown


class _Reader:
    def __init__(
        self, workspace: Path, home: Path, *, trusted: bool = True, external_ok: bool = False
    ) -> None:
        self.workspace = workspace
        self.home = home
        self.trusted = trusted
        self.external_ok = external_ok
        """The user approved imports from outside the workspace (in a trusted workspace
        only)."""
        self.refuse: Callable[[Path], bool] | None = None
        self.admits: Callable[[Path], bool] | None = None
        self.parts: list[_Part] = []
        self.files: list[Path] = []
        self.importers: dict[Path, Path] = {}
        self.problems: list[str] = []
        self.external: list[str] = []
        self.scoped: list[tuple[Path, Path]] = []
        self.reported: set[Path] = set()
        """Import targets already reported, so a missing file referenced twice is reported
        once."""

    def scope_rules(self, directory: Path, base: Path) -> None:
        """Keep the rules of `directory` that name `paths` (of a source the session reads), their
        globs relative to `base`."""
        for rule in scoped_rules(directory):
            if self.admits is None or self.admits(rule):
                self.scoped.append((rule, base))

    def read_top(self, path: Path, note: str, *, area: Path | None = None) -> None:
        """Read a file found by name; `area` is where a project file (and what it imports)
        must stay without the user's approval, None for the user's own file."""
        if self.admits is not None and not self.admits(path):
            return
        if not os.path.lexists(path):
            return
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            real = path  # a link to nothing or to itself: reading it says which
        if area is not None and not self._admitted(real, area, self.show(path), importing=False):
            return
        # Its imports stay in the workspace (the main one's, for a worktree's local file).
        within = area if area is None or self.workspace.is_relative_to(area) else self.workspace
        self._read(real, note, depth=0, chain=(), area=within)

    def _admitted(self, path: Path, area: Path, shown: str, *, importing: bool) -> bool:
        """Whether a project's file may be read: inside `area`, or outside it with the user's
        approval; never a credential location or a file a deny rule covers."""
        never = self._never(path, importing=importing)
        if never is not None:
            self.problem(path, f"{shown} not read: {never}.")
            return False
        if path.is_relative_to(area):
            return True
        if not self.trusted:
            self.problem(path, f"{shown} not read: outside the workspace, which is not trusted.")
            return False
        if not self.external_ok:
            if path not in self.reported:
                self.reported.add(path)
                self.external.append(shown)
            return False
        return True

    def _never(self, path: Path, *, importing: bool) -> str | None:
        """Why no instruction file may bring `path` into the prompt, if it may not."""
        for directory in SYSTEM_DIRS:
            if path.is_relative_to(directory):
                return f"{directory} holds processes' memory and devices, not instructions"
        for entry in HOME_SECRETS:
            if path.is_relative_to(self.home / entry):
                return f"~/{entry} holds credentials or history, never read into the prompt"
        if importing and self.refuse is not None and self.refuse(path):
            return "a Read deny rule covers it"
        return None

    def _read(
        self, path: Path, note: str, *, depth: int, chain: tuple[Path, ...], area: Path | None
    ) -> None:
        if path in self.files:
            return
        shown = self.show(path)
        try:
            # Undecodable bytes are replaced rather than losing the whole file over one of
            # them; a directory, a FIFO or a binary file is a problem, not a hang. Read by
            # descriptor without following links: a link put in place of the file, or of a
            # directory above it, after it was judged (by a command running meanwhile) fails.
            found = read_text_file(
                path, limit_bytes=MAX_FILE_BYTES, lenient=True, nofollow=True, truncate=True
            )
        except UnreadableFile as e:
            self.problem(path, f"{shown} {e.reason}; not read.")
            return
        if found is None:
            return
        text = found.removeprefix("\ufeff")
        self.files.append(path)
        content = strip_comments(text).strip("\n").rstrip()
        if content:
            self.parts.append(_Part(f"Contents of {shown} ({note}):", content, shown))
        chain = (*chain, path)
        for token in find_imports(text):
            if not token.path_like and not (path.parent / token.path).is_file():
                continue  # `@someone` in prose, not a file: no import and nothing to say
            where = f"{shown} line {token.line}"
            self._follow(token.path, where, path, depth=depth, chain=chain, area=area)

    def _follow(
        self,
        target: str,
        where: str,
        importer: Path,
        *,
        depth: int,
        chain: tuple[Path, ...],
        area: Path | None,
    ) -> None:
        if target.startswith("~/"):
            path = real_path(self.home / target[2:])
        else:
            path = real_path(importer.parent / target)
        if path in chain:
            self.problem(path, f"{where}: @{target} imports a file that imports it; skipped.")
        elif path in self.files:
            return
        elif not path.exists():
            self.problem(path, f"{where}: @{target} {_missing(path)}.")
        elif not path.is_file():
            self.problem(path, f"{where}: @{target} is not a file.")
        elif depth + 1 > MAX_IMPORT_DEPTH:
            self.problem(
                path,
                f"{where}: @{target} not read: imports nest at most {MAX_IMPORT_DEPTH} levels.",
            )
        elif area is None and (never := self._never(path, importing=True)) is not None:
            self.problem(path, f"{where}: @{target} not read: {never}.")
        elif area is None or self._admitted(path, area, f"{where}: @{target}", importing=True):
            note = f"imported by {self.show(importer)}"
            self.importers.setdefault(path, importer)
            self._read(path, note, depth=depth + 1, chain=chain, area=area)

    def problem(self, target: Path, message: str) -> None:
        if target not in self.reported:
            self.reported.add(target)
            self.problems.append(message)

    def show(self, path: Path) -> str:
        if path.is_relative_to(self.workspace):
            return str(path.relative_to(self.workspace))
        if path.is_relative_to(self.home):
            return f"~/{path.relative_to(self.home)}"
        return str(path)

    def result(self) -> Instructions:
        blocks: list[str] = []
        sizes: list[tuple[str, int]] = []
        size = 0
        for index, part in enumerate(self.parts):
            block = f"{part.heading}\n\n{part.content}"
            sizes.append((part.shown, min(len(block), max(MAX_CHARS - size, 0))))
            if size + len(block) > MAX_CHARS:
                left_out = len(self.parts) - index - 1
                note = (
                    f"[Instructions cut at {MAX_CHARS} characters: the rest of {part.shown}"
                    f"{f' and {left_out} more file(s)' if left_out else ''} left out.]"
                )
                blocks.append(block[: max(MAX_CHARS - size, 0)] + f"\n{note}")
                self.problems.append(note.strip("[]"))
                break
            blocks.append(block)
            size += len(block) + 2
        return Instructions(
            "\n\n".join(blocks),
            tuple(self.files),
            tuple(self.problems),
            tuple(self.external),
            imported_by=tuple(self.importers.items()),
            scoped_rules=tuple(self.scoped),
            sizes=tuple(sizes),
        )


def _missing(path: Path) -> str:
    """Why an import names nothing readable: not found, or a link to nothing or to itself."""
    if not os.path.lexists(path):
        return "not found"
    try:
        read_file_bytes(path, limit_bytes=0, truncate=True)  # a link: stat fails, nothing read
    except UnreadableFile as e:
        return f"{e.reason}; not read"
    return "not found"
