"""What stands in for a missing protected path while commands run: git never sees it (inside
or outside, in a repository, in a subdirectory of one, outside any), and it is gone once the
commands stop, after every way a command can end, at the session's end, and after a killed
tether's."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tether.sandbox.hook_managers import MANAGER_OF
from tether.sandbox.placeholders import MARK
from tether.sandbox.protected import WORKSPACE_PROTECTED
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome

from .conftest import (
    SETPRIV,
    UNPRIVILEGED,
    Layout,
    bash_runner,
    end_session,
    host_processes_with,
    needs_bwrap,
    sandboxed_context,
    wait_until,
)

pytestmark = needs_bwrap

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "safe.directory=*"]
PLACEHOLDERS = " ".join(
    sorted(
        {e.path.split("/")[0] for e in WORKSPACE_PROTECTED if e.path not in MANAGER_OF}
        | {".git", ".hg"}
    )
)
"""What an empty workspace gets: a placeholder at the first name of every protected path (no
hook manager is in play there)."""


def git(*args: str, cwd: Path) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, check=True, text=True).stdout


def listing(root: Path) -> list[str]:
    """What is under `root`, but for what a repository keeps in `.git`. Placeholders may go
    while it looks (their removal runs in the background): what went meanwhile is not there,
    where a walk with `rglob` would fail on the directory it was about to enter."""
    found: list[str] = []
    for directory, subdirectories, files in os.walk(root):  # errors: that entry went
        for name in (*subdirectories, *files):
            found.append(str((Path(directory) / name).relative_to(root)))
    return sorted(p for p in found if not (root / ".git").is_dir() or p.split("/")[0] != ".git")


def repository(base: Path, *, subdirectory: bool) -> tuple[Path, Path]:
    """(the repository, the workspace in it) with one commit of `a.txt` in the workspace."""
    repo = base / "ws"
    workspace = repo / "pkg" if subdirectory else repo
    workspace.mkdir(parents=True, exist_ok=True)
    git("init", "-q", cwd=repo)
    (workspace / "a.txt").write_text("a\n")
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "one", cwd=repo)
    return repo, workspace


def in_workspace(boundary: Layout, workspace: Path) -> Layout:
    moved = Layout(
        workspace, boundary.scratch, boundary.home, boundary.outside, boundary.unprivileged
    )
    moved.hand_over()
    return moved


@pytest.mark.parametrize("subdirectory", [False, True], ids=["repository", "subdirectory"])
async def test_git_sees_no_placeholder_inside_or_outside(
    boundary: Layout, subdirectory: bool
) -> None:
    """The measured defect: `git add -A` inside committed the empty placeholders, and outside
    `git status` then showed them deleted."""
    repo, workspace = repository(boundary.workspace.parent, subdirectory=subdirectory)
    layout = in_workspace(boundary, workspace)
    # In a subdirectory the repository is outside the workspace: writable only when the
    # settings say so (/tmp, where the test's repository is, is read-only).
    ctx = sandboxed_context(layout, writable=(repo,) if subdirectory else ())
    run = bash_runner(ctx)
    git_ = " ".join(GIT)
    # In a subdirectory the repository's .git is outside the workspace: read-only, so no
    # commit there, but what `add` would take is the question.
    commit = (
        f"{git_} add -A --dry-run" if subdirectory else f"{git_} add -A && {git_} commit -qm change"
    )
    outcome = await run(
        command=f"for p in {PLACEHOLDERS}; do test -e $p || echo MISSING $p; done; "
        f"{git_} status --porcelain --untracked-files=all; {git_} add -A --dry-run; "
        f"echo b >> a.txt && {commit} && {git_} status --porcelain --untracked-files=all; echo end"
    )
    # Inside: every placeholder is there (a directory, or a file's mask), and git sees only
    # the real change.
    prefix = "pkg/" if subdirectory else ""
    expected = "add 'pkg/a.txt'\n M pkg/a.txt\nend" if subdirectory else "end"
    assert outcome == ToolOutcome(expected, False)
    # Outside: the commit holds a.txt alone, nothing is pending, nothing is left.
    if not subdirectory:
        assert git("show", "--name-only", "--format=", "HEAD", cwd=repo) == "a.txt\n"
        assert git("status", "--porcelain", "--untracked-files=all", cwd=repo) == ""
    else:
        assert git("status", "--porcelain", "--untracked-files=all", cwd=repo) == " M pkg/a.txt\n"
    assert git("ls-files", cwd=repo) == f"{prefix}a.txt\n"
    await end_session(ctx)
    assert listing(workspace) == ["a.txt"]


async def test_git_outside_sees_nothing_while_a_command_runs(boundary: Layout) -> None:
    repo, _ = repository(boundary.workspace.parent, subdirectory=False)
    layout = in_workspace(boundary, repo)
    go = layout.workspace / "go"
    ctx = sandboxed_context(layout)
    run = bash_runner(ctx)
    command = f"touch started; while [ ! -e {go} ]; do sleep 0.05; done; echo slow"
    slow = asyncio.ensure_future(run(command=command))
    assert await wait_until((repo / "started").exists)
    assert (repo / ".mcp.json").is_dir()  # the placeholder, while the command runs
    assert git("status", "--porcelain", cwd=repo) == "?? started\n"
    git("add", "-A", cwd=repo)
    assert git("diff", "--cached", "--name-only", cwd=repo) == "started\n"
    go.touch()
    assert await slow == ToolOutcome("slow", False)
    await end_session(ctx)
    assert listing(repo) == ["a.txt", "go", "started"]


async def test_a_workspace_outside_any_repository_is_left_as_it_was(boundary: Layout) -> None:
    (boundary.workspace / "a.txt").write_text("a\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(
        command="find . -type f | sort; git status --porcelain 2>/dev/null || echo no repository"
    )
    assert outcome == ToolOutcome("./a.txt\nno repository", False)
    await end_session(ctx)
    assert listing(boundary.workspace) == ["a.txt"]


def identities(root: Path) -> dict[str, tuple[int, int]]:
    return {
        name: (os.lstat(root / name).st_dev, os.lstat(root / name).st_ino)
        for name in os.listdir(root)
    }


async def test_the_next_command_finds_the_placeholders_already_there(boundary: Layout) -> None:
    """Made by the first command and kept for the next (making and removing dozens of
    directories around every command costs milliseconds each on some disks), which mounts
    them read-only again: nothing can be made at those names, nor a repository where there
    is none (the kept `.git` is an empty directory); the session's end takes them away."""
    ctx = sandboxed_context(boundary, linger_s=600)  # nothing goes in the background here
    run = bash_runner(ctx)
    ws = boundary.workspace
    assert await run(command="echo made") == ToolOutcome("made", False)
    kept = identities(ws)
    assert sorted(kept) == PLACEHOLDERS.split()
    attack = (
        "(echo evil > .mcp.json/x; mkdir .claude/hooks; rmdir .vscode; mv .idea idea; "
        "touch .git/HEAD; mkdir -p .git/hooks) 2>/dev/null; git init -q . 2>/dev/null || "
        "echo refused; find . -mindepth 2 | LC_ALL=C sort"
    )
    nested = sorted(f"./{e.path}" for e in WORKSPACE_PROTECTED if "/" in e.path)
    assert await run(command=attack) == ToolOutcome("\n".join(["refused", *nested]), False)
    assert identities(ws) == kept  # the same directories: not made again, not removed
    await end_session(ctx)
    assert listing(ws) == []


async def test_nothing_is_left_after_a_timeout_or_a_cancellation(boundary: Layout) -> None:
    """No later command, no end of session: a moment after the command's end they go."""
    ctx = sandboxed_context(boundary, linger_s=0.1)
    run = bash_runner(ctx)
    timed_out = await run(command="sleep 30", timeout=300)
    assert timed_out.is_error
    assert await wait_until(lambda: listing(boundary.workspace) == [])
    started = boundary.workspace / "started"
    task = asyncio.ensure_future(run(command=f"touch {started}; sleep 30"))
    assert await wait_until(started.exists)
    assert (boundary.workspace / ".claude").is_dir()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until(lambda: listing(boundary.workspace) == ["started"])


async def test_nothing_is_left_once_a_background_command_ends(boundary: Layout) -> None:
    """No later command, no end of session: a moment after its end the placeholders go."""
    ctx = sandboxed_context(boundary, linger_s=0.1)
    run = bash_runner(ctx)
    outcome = await run(command="sleep 0.2; echo done > finished", run_in_background=True)
    assert not outcome.is_error
    shell = ctx.background.get("bash_1")
    assert shell.cleanup is not None
    await shell.cleanup
    assert await wait_until(lambda: listing(boundary.workspace) == ["finished"])


async def test_nothing_is_left_when_a_background_command_is_stopped(boundary: Layout) -> None:
    """The session ends while it runs: stopped first, then the placeholders go at once."""
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    await run(command="sleep 30", run_in_background=True)
    assert (boundary.workspace / ".mcp.json").is_dir()
    await end_session(ctx)
    assert ctx.background.get("bash_1").returncode is not None
    assert listing(boundary.workspace) == []


def sleeping(token: str) -> list[int]:
    """The pids of the sandbox's `sleep <token>` (not of bwrap, whose line also names it)."""
    found: list[int] = []
    for pid in host_processes_with(token):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep\0"):
                found.append(pid)
    return found


CHILD = textwrap.dedent(
    """
    import dataclasses, json, os, pwd, subprocess, sys, time
    from pathlib import Path
    from tether.sandbox import SandboxSettings, plan_sandbox, probe

    spec = json.loads(os.environ["SPEC"])
    ws = Path(spec["workspace"])
    sandbox, _, _ = plan_sandbox(
        SandboxSettings(), probe(), workspace=ws, scratch_dir=Path(spec["scratch"]),
        home=Path(spec["home"]),
    )
    if spec["uid"] is not None:  # tether unprivileged would make no device nodes
        sandbox = dataclasses.replace(sandbox, devices=lambda: None)
        # nor would hide root's passwd home, which that user cannot reach (conftest.py)
        own = os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir) + "/"
        shown = tuple(p for p in sandbox.hidden if not str(p).startswith(own))
        sandbox = dataclasses.replace(sandbox, hidden=shown)
    command = sandbox.wrap(["sleep", spec["token"]], ws)
    if spec["uid"] is not None:
        for root, dirs, files in os.walk(ws):
            for name in (root, *(os.path.join(root, n) for n in dirs + files)):
                os.lchown(name, spec["uid"], spec["uid"])
        command[1:1] = ["--setenv", "HOME", spec["home"]]
        command[:0] = [spec["setpriv"], f"--reuid={spec['uid']}", f"--regid={spec['uid']}",
                       "--clear-groups"]
    subprocess.Popen(command, pass_fds=command.pass_fds, env=command.environment(os.environ))
    command.spawned()
    print("ready", flush=True)
    time.sleep(1000)
    """
)


async def test_a_killed_tether_leaves_what_the_next_start_removes(boundary: Layout) -> None:
    token = f"1000.{os.getpid()}{id(boundary) % 1000}"

    spec = {
        "workspace": str(boundary.workspace),
        "scratch": str(boundary.scratch),
        "home": str(boundary.home),
        "token": token,
        "uid": UNPRIVILEGED if boundary.unprivileged else None,
        "setpriv": SETPRIV,
    }
    # The token in the environment, not the command line: only the sandbox's sleep has it.
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "SPEC": json.dumps(spec)},
    )
    try:
        assert child.stdout is not None
        assert await child.stdout.readline() == b"ready\n"
        # Killed only once the command runs (bwrap set up, its parent watched).
        assert await wait_until(lambda: bool(sleeping(token)))
    finally:
        child.send_signal(signal.SIGKILL)
        await child.wait()
    # bwrap dies with its parent; what it left stays until someone clears it.
    assert await wait_until(lambda: not host_processes_with(token))
    left = listing(boundary.workspace)
    assert ".mcp.json" in left
    boundary.sandbox()  # the next start in this workspace
    assert listing(boundary.workspace) == []


async def test_a_marked_placeholder_without_its_journal_is_removed_at_start(
    boundary: Layout,
) -> None:
    """After a reboot (the journal lived in /dev/shm) the mark still tells a placeholder; a
    directory of the user's own, or one the user filled, stays."""
    ws = boundary.workspace
    for name in (".claude", ".vscode", ".idea"):
        (ws / name).mkdir()
    try:
        os.setxattr(ws / ".claude", MARK, b"1")
        os.setxattr(ws / ".vscode", MARK, b"1")
    except OSError:
        pytest.skip("this file system keeps no user attributes")
    (ws / ".vscode" / "tasks.json").write_text("{}")
    boundary.sandbox()
    assert listing(ws) == [".idea", ".vscode", ".vscode/tasks.json"]


async def test_a_user_directory_at_a_protected_name_is_never_removed(boundary: Layout) -> None:
    ws = boundary.workspace
    (ws / ".idea").mkdir()
    boundary.hand_over()
    ctx: ToolContext = sandboxed_context(boundary)
    run = bash_runner(ctx)
    assert await run(command="rmdir .idea 2>/dev/null; echo done") == ToolOutcome("done", False)
    boundary.sandbox()
    assert listing(ws) == [".idea"]
