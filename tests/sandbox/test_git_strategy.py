"""A stopped rebase or cherry-pick a command leaves runs no merge strategy of the command's at
the user's `--continue` outside: a strategy that is not git's (`git-merge-<name>`, found on
the user's PATH) is put back as it was, the file as the command left it kept beside."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context
from .test_git_state import STOP, two_commits
from .test_repo_content import IDENTITY, git

pytestmark = needs_bwrap


def strategy_program(layout: Layout) -> tuple[Path, Path]:
    """A `git-merge-evil` on a directory for the user's PATH, and the file it makes."""
    bin_dir = layout.outside / "bin"
    bin_dir.mkdir()
    proof = layout.outside / "ran"
    program = bin_dir / "git-merge-evil"
    program.write_text(f"#!/bin/sh\ntouch {proof}\nexit 0\n")
    program.chmod(0o755)
    return bin_dir, proof


def continued(ws: Path, what: str, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(
        ["git", "-c", "safe.directory=*", *IDENTITY.split(), what, "--continue"],
        cwd=ws,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_EDITOR": "true", "PATH": path},
    )


async def test_a_strategy_a_command_sets_on_a_stopped_rebase_is_removed(
    boundary: Layout,
) -> None:
    ws = boundary.workspace
    two_commits(ws)
    bin_dir, proof = strategy_program(boundary)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    strategy = ws / ".git" / "rebase-merge" / "strategy"
    out = await bash_runner(ctx)(command=STOP + f"echo evil > {strategy}; echo STOPPED")
    await end_session(ctx)
    assert "STOPPED" in out.content, out.content
    assert "merge strategy" in out.content, out.content
    assert not strategy.exists()
    assert strategy.with_name(strategy.name + DISABLED).read_text() == "evil\n"
    done = continued(ws, "rebase", bin_dir)
    assert done.returncode == 0, done.stderr
    assert not proof.exists()


def options(opts: Path) -> str:
    listed = ["git", "config", "--file", os.fspath(opts), "--list"]
    return subprocess.run(listed, capture_output=True, text=True, check=True).stdout


def conflicting_side(ws: Path) -> None:
    """`main` with a, b and c; `side` from a, changing b: picking main's b and c stops."""
    git(ws, "init", "-q", "-b", "main")
    for name in ("a", "b", "c"):
        (ws / name).write_text(name)
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", name)
    git(ws, "checkout", "-q", "-b", "side", "HEAD~2")
    (ws / "b").write_text("z")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "z")


async def test_a_strategy_a_command_sets_in_a_cherry_picks_options_is_put_back(
    boundary: Layout,
) -> None:
    ws = boundary.workspace
    conflicting_side(ws)
    bin_dir, proof = strategy_program(boundary)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    opts = ws / ".git" / "sequencer" / "opts"
    command = (
        f"git {IDENTITY} cherry-pick main~1 main; "
        f"git config --file {opts} options.strategy evil; "
        f"git config --file {opts} options.signoff true; "
        "echo b > b; git add b; echo STOPPED"
    )
    out = await bash_runner(ctx)(command=command)
    await end_session(ctx)
    assert "STOPPED" in out.content, out.content
    assert "merge strategy" in out.content, out.content
    kept = options(opts)
    assert "options.strategy" not in kept, kept
    assert "options.signoff=true" in kept, kept
    assert "strategy = evil" in opts.with_name(opts.name + DISABLED).read_text()
    done = continued(ws, "cherry-pick", bin_dir)
    assert done.returncode == 0, done.stderr
    assert not proof.exists()


async def test_a_built_in_strategy_a_command_sets_is_left(boundary: Layout) -> None:
    ws = boundary.workspace
    two_commits(ws)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    strategy = ws / ".git" / "rebase-merge" / "strategy"
    out = await bash_runner(ctx)(command=STOP + f"echo resolve > {strategy}; echo STOPPED")
    await end_session(ctx)
    assert "merge strategy" not in out.content, out.content
    assert strategy.read_text() == "resolve\n"
