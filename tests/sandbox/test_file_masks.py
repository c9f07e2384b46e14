"""A missing protected file that tools read as their settings (`.npmrc`, `.envrc`) stands
inside as an empty file, as its name says, not as a directory: a tool reads no settings there
(deno failed on the directory at `.npmrc`: "Is a directory"). The file keeps no write, cannot
be removed or renamed, and git lists it neither inside nor outside; it is gone when the
session ends. The files only a later session reads (`.mcp.json`) stay directories, on which a
write fails and says so."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess

import pytest

from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "safe.directory=*"]
NAMES = [".npmrc", ".yarnrc.yml", ".envrc", ".tool-versions", "mise.toml", ".pdbrc"]


def git(*args: str, layout: Layout) -> str:
    run = subprocess.run
    return run(
        [*GIT, *args], cwd=layout.workspace, capture_output=True, check=True, text=True
    ).stdout


async def test_a_missing_settings_file_reads_as_empty(boundary: Layout) -> None:
    (boundary.workspace / "package.json").write_text('{"name": "p"}\n')
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    read = "import sys; print([open(n).read() for n in sys.argv[1:]])"
    outcome = await run(command=f"cat {' '.join(NAMES)} && python3 -c '{read}' {' '.join(NAMES)}")
    assert outcome == ToolOutcome(str([""] * len(NAMES)), False)
    await end_session(ctx)
    assert sorted(os.listdir(boundary.workspace)) == ["package.json"]


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
async def test_node_reads_no_npm_settings(boundary: Layout) -> None:
    (boundary.workspace / "package.json").write_text('{"name": "p"}\n')
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    script = "console.log(JSON.stringify(require('fs').readFileSync('.npmrc', 'utf8')))"
    assert await run(command=f'node -e "{script}"') == ToolOutcome('""', False)
    await end_session(ctx)


async def test_it_keeps_nothing_and_git_lists_it_nowhere(boundary: Layout) -> None:
    (boundary.workspace / "a.txt").write_text("a\n")
    git("init", "-q", layout=boundary)
    git("add", "-A", layout=boundary)
    git("commit", "-qm", "one", layout=boundary)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    gitc = " ".join(GIT)
    outcome = await run(
        command="for n in .npmrc .envrc; do echo 'registry=http://x' >> $n; "
        "rm -f $n 2>/dev/null && echo REMOVED $n; mv $n moved 2>/dev/null && echo MOVED $n; "
        "test -s $n && echo KEPT $n; done; "
        f"{gitc} status --porcelain --untracked-files=all; {gitc} add -A --dry-run; echo end"
    )
    assert outcome == ToolOutcome("end", False)
    for name in (".npmrc", ".envrc"):
        # Outside meanwhile (the placeholder stays a moment for the next command): a socket
        # file nothing listens on, which git does not list either.
        path = boundary.workspace / name
        assert not os.path.lexists(path) or stat.S_ISSOCK(os.lstat(path).st_mode)
    assert git("status", "--porcelain", "--untracked-files=all", layout=boundary) == ""
    await end_session(ctx)
    assert sorted(os.listdir(boundary.workspace)) == [".git", "a.txt"]


def test_a_mask_left_without_its_journal_is_removed_at_start(boundary: Layout) -> None:
    """After a reboot (the journal lived in /dev/shm) a socket file at a protected file's name
    is a placeholder (a socket carries no mark); a socket at any other name is not."""
    for name in (".npmrc", "app.sock"):
        with socket.socket(socket.AF_UNIX) as bound:
            bound.bind(str(boundary.workspace / name))
    boundary.hand_over()
    boundary.sandbox()
    assert sorted(os.listdir(boundary.workspace)) == ["app.sock"]
