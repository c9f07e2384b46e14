"""Projects nested below a writable root (a cloned dependency, a package of a monorepo, a
directory of repositories added with `--add-dir`), and the protected files they have: found by
a breadth-first search, bounded, one listing per directory kept while it is unchanged
(`protected.listing`).
"""

from __future__ import annotations

import os
from pathlib import Path

from tether.sandbox.hook_managers import MANAGER_OF
from tether.sandbox.protected import WORKSPACE_PROTECTED, Protected, listing, protected_in

START_UP_FILES = frozenset(
    {".envrc", ".tool-versions", "mise.toml", "mise.local.toml", ".mise.toml"}
    | {".mise.local.toml", ".mise", "mise", ".config", ".vscode", ".idea"}
)
"""What a tool reads from the directory it is started in, or the nearest one up that has it,
whatever the project (direnv, mise and asdf: `cd` there and it runs; an editor opened on the
folder): guarded while missing, with the build tools' own, where a build file of `TOOL_ROOTS`
is (where such tools are started), in a nested project or not."""

TOOL_ROOTS: dict[str, frozenset[str]] = {
    "package.json": frozenset({".npmrc", ".yarnrc", ".yarnrc.yml", ".yarn"}),
    "Cargo.toml": frozenset({".cargo", "rust-toolchain", "rust-toolchain.toml"}),
    "pyproject.toml": frozenset({".pdbrc"}),
    "setup.py": frozenset({".pdbrc"}),
    "setup.cfg": frozenset({".pdbrc"}),
    "Gemfile": frozenset({".irbrc", ".pryrc"}),
    "mix.exs": frozenset({".iex.exs"}),
    "DESCRIPTION": frozenset({".Rprofile", ".Renviron"}),
    "stack.yaml": frozenset({".ghci"}),
    "cabal.project": frozenset({".ghci"}),
    "Makefile": frozenset({".gdbinit"}),
    "CMakeLists.txt": frozenset({".gdbinit"}),
    "meson.build": frozenset({".gdbinit"}),
}
"""A build file that makes a directory where its tools are started (`npm test` in a package of
a monorepo, `cargo build` in a crate, gdb beside a Makefile), and the start-up files those
tools read there: guarded while missing in that directory, with `START_UP_FILES` (`.npmrc`'s
`script-shell` in `pkg/`, `.cargo/config.toml`'s rustc wrapper in `crate/`). Elsewhere (a
plain `src/`), the table's names are read-only where they exist and can be made where
missing: npm reads `.npmrc` only at the package's root, cargo and rustup are started in a
crate, and guarding every name in every directory is a mount per name and directory on every
command."""

_BUILD_FILES = frozenset(TOOL_ROOTS)

NESTED_TOOL_ROOTS = 8
"""Directories below a writable root that are no project but have a build file of
`TOOL_ROOTS`, guarded as such at most (breadth first, shallow ones first): each adds a dozen
mounts to every command. The others' names are read-only where they exist."""


def tools_of(names: set[str]) -> frozenset[str]:
    """The start-up files guarded in a directory holding `names`: none unless a build file of
    `TOOL_ROOTS` is there."""
    if _BUILD_FILES.isdisjoint(names):
        return frozenset()
    return START_UP_FILES.union(*(TOOL_ROOTS[name] for name in _BUILD_FILES & names))


NESTED_DEPTH = 3
"""How many directory levels below a writable root are searched for nested projects."""
NESTED_LIMIT = 1000
"""How many directories that search visits at most (breadth first: shallow projects first)."""
_NOT_SEARCHED = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", ".cache",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", "target", "dist", "build"}
)  # fmt: skip
"""Directories that hold dependencies or build output, not projects."""


def nested_protected(root: Path, known: set[str] | None = None) -> list[tuple[Path, Protected]]:
    """The protected files of directories nested below `root` (a cloned dependency, a
    directory of repositories added with `--add-dir`). A project (`PROJECT_MARKERS`: a
    repository, or a directory an agent's session configures) is guarded like the root: what
    exists is kept read-only, what is missing gets a placeholder, so a command cannot give it
    a `.claude/settings.json` or `.mcp.json` that a session started there later would obey.
    Another directory holding some of the table's names (an editor's `.vscode`) has those kept
    read-only. Breadth first, one listing per directory, each listing kept while the
    directory is unchanged (`protected.listing`). `known`: the projects found by earlier
    searches of the session, added to as this one finds more; one the bound keeps this search
    from reaching (a command made 1,000 directories that come first) is guarded all the same
    while it is still a project, so that its protection is not lost."""
    found: list[tuple[Path, Protected]] = []
    reached: set[str] = set()
    level, visited = [os.fspath(root).rstrip("/")], 0  # "" for /: names join as "/name"
    tool_roots = 0
    for depth in range(NESTED_DEPTH + 1):
        below: list[str] = []
        for directory in level:
            children = listing(directory or "/")
            if children is None:
                continue
            if depth > 0:
                names = {name for name, _ in children}
                tools = tools_of(names)
                if not PROJECT_MARKERS.isdisjoint(names):
                    where = Path(directory or "/")
                    found += protected_in(where, WORKSPACE_PROTECTED, nested=True, tools=tools)
                    reached.add(directory)
                elif tools and tool_roots < NESTED_TOOL_ROOTS:
                    tool_roots += 1
                    found += _tool_root(Path(directory or "/"), tools, names)
                elif not _FIRST_NAMES.isdisjoint(names):
                    found += _existing(Path(directory or "/"), names)
            if depth < NESTED_DEPTH:
                below += sorted(
                    f"{directory}/{name}"
                    for name, is_dir in children
                    if is_dir and name not in _NOT_SEARCHED and name not in _FIRST_NAMES
                )
        below = below[: max(0, NESTED_LIMIT - visited)]
        visited += len(below)
        level = below
    if known is not None:
        found += _known_projects(root, known, reached)
        known |= reached
    return found


def _known_projects(root: Path, known: set[str], reached: set[str]) -> list[tuple[Path, Protected]]:
    """The protected files of the projects of `known` under `root` that this search did not
    reach but still are projects."""
    found: list[tuple[Path, Protected]] = []
    prefix = os.fspath(root).rstrip("/") + "/"
    for directory in sorted(known - reached):
        if not directory.startswith(prefix):
            continue
        children = listing(directory)
        if children is None:
            continue
        names = {name for name, _ in children}
        if PROJECT_MARKERS.isdisjoint(names):
            continue
        where = Path(directory)
        found += protected_in(where, WORKSPACE_PROTECTED, nested=True, tools=tools_of(names))
    return found


def _tool_root(
    directory: Path, tools: frozenset[str], names: set[str]
) -> list[tuple[Path, Protected]]:
    """A directory with a build file: its tools' start-up files guarded (a placeholder where
    missing), the table's other names read-only where they exist."""
    guarded = [
        (directory / entry.path, entry)
        for entry in WORKSPACE_PROTECTED
        if entry.path.split("/")[0] in tools and entry.path not in MANAGER_OF
    ]
    kept = {path for path, _ in guarded}
    return guarded + [(p, e) for p, e in _existing(directory, names) if p not in kept]


def _existing(directory: Path, names: set[str]) -> list[tuple[Path, Protected]]:
    """The table's entries that exist in `directory`, read-only; nothing made where missing."""
    found: list[tuple[Path, Protected]] = []
    for entry in WORKSPACE_PROTECTED:
        path = directory / entry.path
        if entry.path.split("/")[0] in names and ("/" not in entry.path or os.path.lexists(path)):
            found.append((path, Protected(entry.path, entry.directory, None, entry.why)))
    return found


PROJECT_MARKERS = frozenset({".git", ".claude", ".tether", ".agents", ".mcp.json"})
"""Names that make a directory a project whose missing files are guarded: a repository, or a
directory configured for an agent's sessions (where one is likely to start one later)."""
_FIRST_NAMES = frozenset(e.path.split("/")[0] for e in WORKSPACE_PROTECTED) | {".git", ".hg"}
"""Every name the table protects, by its first component (`config` for the seed's YAML)."""
