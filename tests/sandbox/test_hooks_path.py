"""The directory `core.hooksPath` names, and the config files git includes, are read-only in
the sandbox like `.git/hooks` and `.git/config`: a hook written there from inside would run at
the user's next `git commit`, outside."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

GIT_ID = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "safe.directory=*"]


def git(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *GIT_ID, *args], cwd=ws, capture_output=True, text=True)


def _planting(marker: Path, hook: str) -> str:
    """A command that writes `hook` as a hook that touches `marker`, quietly."""
    return (
        f"(mkdir -p $(dirname {hook}); printf '#!/bin/sh\\ntouch {marker}\\n' > {hook}; "
        f"chmod +x {hook}) 2>/dev/null; echo done"
    )


async def test_a_committed_hooks_directory_stays_read_only(boundary: Layout) -> None:
    ws = boundary.workspace
    git(ws, "init", "-q")
    (ws / ".githooks").mkdir()
    (ws / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (ws / ".githooks" / "pre-commit").chmod(0o755)
    git(ws, "config", "core.hooksPath", ".githooks")
    boundary.hand_over()
    marker = boundary.outside / "hook-ran"
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    for hook in (".githooks/pre-commit", ".githooks/commit-msg"):
        assert await run(command=_planting(marker, hook)) == ToolOutcome("done", False)
    outcome = await run(command="(mv .githooks .old && mkdir .githooks) 2>/dev/null; echo done")
    assert outcome == ToolOutcome("done", False)
    await end_session(ctx)
    assert sorted(os.listdir(ws / ".githooks")) == ["pre-commit"]
    (ws / "f").write_text("x\n")
    git(ws, "add", "f")
    assert git(ws, "commit", "-qm", "x").returncode == 0
    assert not marker.exists()


async def test_a_missing_hooks_directory_cannot_be_made(boundary: Layout) -> None:
    ws = boundary.workspace
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", "tools/hooks")
    boundary.hand_over()
    marker = boundary.outside / "hook-ran"
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    assert await run(command=_planting(marker, "tools/hooks/pre-commit")) == ToolOutcome(
        "done", False
    )
    await end_session(ctx)
    assert not (ws / "tools" / "hooks" / "pre-commit").exists()
    # The rest of the work tree stays writable.
    ctx = sandboxed_context(boundary)
    outcome = await bash_runner(ctx)(command="echo ok > tools/notes.txt && cat tools/notes.txt")
    assert outcome == ToolOutcome("ok", False)
    await end_session(ctx)


async def test_hooks_in_the_work_tree_itself(boundary: Layout) -> None:
    """`core.hooksPath = .`: the hooks by name are guarded, not the whole work tree."""
    ws = boundary.workspace
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", ".")
    boundary.hand_over()
    marker = boundary.outside / "hook-ran"
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    assert await run(command=_planting(marker, "pre-commit")) == ToolOutcome("done", False)
    assert await run(command="echo x > notes.txt && cat notes.txt") == ToolOutcome("x", False)
    await end_session(ctx)
    assert not (ws / "pre-commit").is_file()


async def test_an_included_config_stays_read_only(boundary: Layout) -> None:
    ws = boundary.workspace
    git(ws, "init", "-q")
    (ws / "gitconfig.shared").write_text("[core]\n\tautocrlf = false\n")
    git(ws, "config", "include.path", "../gitconfig.shared")
    boundary.hand_over()
    marker = boundary.outside / "fsmonitor-ran"
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(
        command=f"(printf '[core]\\n\\tfsmonitor = touch {marker}\\n' >> gitconfig.shared) "
        "2>/dev/null; echo done"
    )
    assert outcome == ToolOutcome("done", False)
    await end_session(ctx)
    assert (ws / "gitconfig.shared").read_text() == "[core]\n\tautocrlf = false\n"
    git(ws, "status")
    assert not marker.exists()
