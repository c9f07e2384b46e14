"""Tools' start-up files below the workspace (a package's `.npmrc`, a crate's
`.cargo/config.toml`, `.envrc`, `.gdbinit`...): a command cannot make one where a tool would
read it later, outside the sandbox, nor change one that exists, wherever it is."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from tether.sandbox.nested import NESTED_TOOL_ROOTS, START_UP_FILES, TOOL_ROOTS
from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

FILES = {
    ".envrc": ".envrc",
    ".tool-versions": ".tool-versions",
    "mise.toml": "mise.toml",
    "mise.local.toml": "mise.local.toml",
    ".mise.toml": ".mise.toml",
    ".mise.local.toml": ".mise.local.toml",
    ".mise": ".mise/config.toml",
    "mise": "mise/config.toml",
    ".config": ".config/mise/config.toml",
    ".vscode": ".vscode/tasks.json",
    ".idea": ".idea/workspace.xml",
    ".npmrc": ".npmrc",
    ".yarnrc": ".yarnrc",
    ".yarnrc.yml": ".yarnrc.yml",
    ".yarn": ".yarn/plugins/evil.cjs",
    ".cargo": ".cargo/config.toml",
    "rust-toolchain": "rust-toolchain",
    "rust-toolchain.toml": "rust-toolchain.toml",
    ".pdbrc": ".pdbrc",
    ".irbrc": ".irbrc",
    ".pryrc": ".pryrc",
    ".iex.exs": ".iex.exs",
    ".Rprofile": ".Rprofile",
    ".Renviron": ".Renviron",
    ".ghci": ".ghci",
    ".gdbinit": ".gdbinit",
}
"""A file to try for each guarded name (a file inside the ones that are directories)."""


def attempt(path: Path) -> str:
    """Every way to make `path` hold "evil"; prints `MADE <path>` if one worked."""
    p = shlex.quote(str(path))
    return (
        f"(mkdir -p $(dirname {p}); echo evil > {p}) 2>/dev/null; "
        f"(echo evil > {p}.new && mv -f {p}.new {p}) 2>/dev/null; rm -f {p}.new 2>/dev/null; "
        f"grep -qs evil {p} && echo MADE {path}; "
    )


def test_every_start_up_name_has_a_file_to_try() -> None:
    assert set(FILES) == START_UP_FILES.union(*TOOL_ROOTS.values())


@pytest.mark.parametrize("build_file", sorted(TOOL_ROOTS))
async def test_a_tools_start_up_files_cannot_be_made_beside_its_build_file(
    boundary: Layout, build_file: str
) -> None:
    """`pkg/` has a build file (no repository): each start-up file its tools read there, and
    those read whatever the project, cannot be made; a plain file beside them can."""
    pkg = boundary.workspace / "packages" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / build_file).write_text("")
    boundary.hand_over()
    names = sorted(START_UP_FILES | TOOL_ROOTS[build_file])
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    script = "".join(attempt(pkg / FILES[name]) for name in names)
    outcome = await run(command=f"{script} echo fine > {pkg}/notes.txt && echo end")
    assert outcome == ToolOutcome("end", False)
    await end_session(ctx)
    assert sorted(os.listdir(pkg)) == sorted([build_file, "notes.txt"])  # nothing left behind


async def test_existing_start_up_files_stay_read_only_in_any_directory(boundary: Layout) -> None:
    """In a plain directory (no build file, no repository) what exists is kept."""
    src = boundary.workspace / "src" / "lib"
    src.mkdir(parents=True)
    for name in (".npmrc", ".envrc", ".pdbrc", ".gdbinit", ".tool-versions"):
        (src / name).write_text("original\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    names = (".npmrc", ".envrc", ".pdbrc", ".gdbinit", ".tool-versions")
    script = "".join(attempt(src / name) for name in names)
    assert await run(command=f"{script} echo end") == ToolOutcome("end", False)
    await end_session(ctx)
    assert all((src / name).read_text() == "original\n" for name in names)


async def test_only_the_first_tool_roots_are_guarded_where_missing(boundary: Layout) -> None:
    """Each tool root is a dozen mounts on every command: past `NESTED_TOOL_ROOTS`, breadth
    first, a package's missing names can be made (and what exists stays read-only), and what
    was made is moved aside when the command ends (`start_sweep.py`)."""
    packages = [boundary.workspace / f"p{i:02}" for i in range(NESTED_TOOL_ROOTS + 1)]
    for package in packages:
        package.mkdir()
        (package / "package.json").write_text("{}\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    script = "".join(attempt(package / ".npmrc") for package in packages)
    outcome = await run(command=f"{script} echo end")
    assert outcome.content.startswith(f"MADE {packages[-1]}/.npmrc\nend"), outcome.content
    assert not (packages[-1] / ".npmrc").exists()
    assert (packages[-1] / ".npmrc.tether-disabled").read_text() == "evil\n"
    await end_session(ctx)
