"""Escapes through what one command leaves for the next: a symlink where the next sandbox binds
a path, a link or a fifo where tether reads a scratch file, a file the next command line
cannot be built with. Each is planted by one Bash call and tried by the next, live, as root
and as an unprivileged caller; the host is checked afterwards."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tether.protocol import ToolUseBlock
from tether.slotted import replaced
from tether.tools.builtin import builtin_tools
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context, snapshot

pytestmark = needs_bwrap

SECRET = "PRIVATE-KEY-MATERIAL"


def plant_secrets(layout: Layout) -> Path:
    """A hidden ~/.ssh with a key and a real subdirectory (what a `.git/worktrees` link needs
    to look like a worktree); the workspace a git repository."""
    ssh = layout.home / ".ssh"
    (ssh / "sub").mkdir(parents=True)
    (ssh / "id_rsa").write_text(f"{SECRET}\n")
    subprocess.run(["git", "init", "-q", str(layout.workspace)], check=True)
    layout.hand_over()
    return ssh


def tool_runner(ctx: ToolContext) -> Any:
    registry = ToolRegistry(builtin_tools())

    async def run(name: str, **tool_input: Any) -> ToolOutcome:
        call = ToolUseBlock(id="call_1", name=name, input=tool_input)
        return replaced(await registry.run(call, ctx), duration_ms=0, structured=None)

    return run


@pytest.mark.parametrize(
    "plant",
    [
        "ln -s {ssh} .git/worktrees",
        "mkdir -p .git/modules && ln -s {ssh} .git/modules/lib",
        "ln -s {ssh} .git/modules",
        # A nested project's protected names, present (so protected) but links.
        "mkdir -p p/.git && ln -s {ssh} p/.vscode",
        "mkdir -p p/.git && ln -s {ssh}/id_rsa p/.mcp.json",
        "mkdir -p p/.git/hooks && ln -s {ssh}/id_rsa p/.git/config",
        # A nested project whose .git points through a link.
        "mkdir p && ln -s {ssh} p/gd && echo 'gitdir: gd/sub' > p/.git",
        # A `sandbox.writable` directory in the workspace, made by a command as a link.
        "ln -s {ssh} build",
    ],
)
async def test_a_planted_symlink_does_not_lead_the_next_sandbox_out(
    boundary: Layout, plant: str
) -> None:
    """The measured escape: `ln -s ~/.ssh .git/worktrees`, and the next command's sandbox
    bound ~/.ssh writable and visible; tether made placeholders in it, as root."""
    ssh = plant_secrets(boundary)
    before = snapshot(ssh)
    run = bash_runner(sandboxed_context(boundary, writable=["build"]))
    first = await run(command=plant.format(ssh=ssh) + " && echo planted")
    # A planted git config link is moved aside when the command ends (`git_sweep`), and the
    # note says so without reading through it.
    assert isinstance(first.content, str)
    assert (first.content.split("\n")[0], first.is_error) == ("planted", False)
    assert SECRET.lower() not in first.content.lower()
    links = (".git/worktrees", ".git/modules/lib", ".git/modules", "p/.vscode", "p/gd", "build")
    places = [str(ssh), *links]
    reads = " ".join(f"{p}/id_rsa {p}/sub/id_rsa" for p in places)
    writes = " ".join(f"{p} {p}/sub" for p in places)
    outcome = await run(
        command=f"cat {reads} p/.mcp.json p/.git/config 2>/dev/null; "
        f"for d in {writes}; do echo x > $d/written; done 2>/dev/null; echo done"
    )
    assert outcome == ToolOutcome("done", False)
    assert snapshot(ssh) == before


@pytest.mark.parametrize("setting", ["writable", "unix_sockets"])
async def test_a_link_planted_in_one_session_is_not_followed_by_the_next(
    boundary: Layout, setting: str
) -> None:
    """A path named in the settings that a command made a link: the next session's plan must
    not resolve it to the link's target and bind that writable."""
    ssh = plant_secrets(boundary)
    before = snapshot(ssh)
    first = bash_runner(sandboxed_context(boundary, **{setting: ["build"]}))
    assert await first(command=f"ln -s {ssh} build && echo planted") == ToolOutcome(
        "planted", False
    )
    run = bash_runner(sandboxed_context(boundary, **{setting: ["build"]}))
    outcome = await run(
        command=f"cat build/id_rsa {ssh}/id_rsa 2>/dev/null; "
        f"for d in build {ssh} build/sub; do echo x > $d/written; done 2>/dev/null; echo done"
    )
    assert outcome == ToolOutcome("done", False)
    assert snapshot(ssh) == before


@pytest.mark.parametrize(
    "plant",
    [
        # The measured one: every later command failed with "Can't find source path".
        "mkdir -p .git/modules/lib && echo 'ref: refs/heads/main' > .git/modules/lib/HEAD "
        "&& ln -s /nonexistent/zz .git/modules/lib/config",
        "mkdir -p .git/worktrees/x && ln -s /nonexistent/zz .git/worktrees/x/commondir",
        "mkdir -p p/.git && ln -s /nonexistent/zz p/.git/config && ln -s /nonexistent p/.vscode",
        "mkdir -p p/.git && ln -s hooks p/.git/hooks",  # a loop
        "mkdir p && printf 'gitdir: a\\0b' > p/.git",  # a NUL in a pointer
        "mkdir -p p/gd && echo 'gitdir: gd' > p/.git && mkfifo p/gd/commondir",  # would block
        "mkdir p && ln -s /dev/zero p/.git",  # endless
        "mkdir p && head -c 100000 /dev/zero | tr '\\0' x > p/.git",
    ],
)
async def test_an_odd_file_does_not_break_the_next_command(boundary: Layout, plant: str) -> None:
    plant_secrets(boundary)
    run = bash_runner(sandboxed_context(boundary))
    planted = await run(command=f"{plant} && echo planted")
    # What a planted git config is disabled with has a note of its own (`git_sweep`).
    assert isinstance(planted.content, str)
    assert (planted.content.split("\n")[0], planted.is_error) == ("planted", False)
    assert await run(command="echo works") == ToolOutcome("works", False)


FIND_CWD_FILE = "f=$(trap -p EXIT | grep -o '{scratch}/cwd-[A-Za-z0-9_]*'); trap - EXIT; "


@pytest.mark.parametrize(
    "replace",
    [
        'ln -sf {secret} "$f"',
        'ln -sf /proc/self/environ "$f"',  # tether's, when it reads the link
        'ln -sf /proc/$PPID/environ "$f"',
        "printf 'a\\0b' > \"$f\"",  # a NUL: no directory is called that
        'rm -f "$f" && mkfifo "$f"',  # would block tether forever
        'rm -f "$f" && mkdir "$f"',
        'head -c 200000 /dev/zero | tr "\\0" / > "$f"',
    ],
)
async def test_the_cwd_report_reads_nothing_the_command_put_in_its_place(
    boundary: Layout, replace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The measured leaks: tether read the file the command linked in place of its cwd
    report (a key, tether's own environment with the API key) and showed it to the model."""
    ssh = plant_secrets(boundary)
    monkeypatch.setenv("TETHER_TEST_MARKER", SECRET)
    run = bash_runner(sandboxed_context(boundary))
    command = FIND_CWD_FILE.format(scratch=boundary.scratch) + replace.format(secret=ssh / "id_rsa")
    outcome = await run(command=command + ' && test -n "$f" && echo replaced')
    assert outcome == ToolOutcome("replaced", False)
    assert await run(command="pwd") == ToolOutcome(f"{boundary.workspace}", False)


async def test_background_output_is_read_from_the_log_tether_made(boundary: Layout) -> None:
    """The measured leak: the command put a link to a credentials file in place of its log, and
    BashOutput printed the credentials."""
    ssh = plant_secrets(boundary)
    ctx = sandboxed_context(boundary)
    run = tool_runner(ctx)
    try:
        started = await run(
            "Bash",
            command=f"echo before; l=$(ls {boundary.scratch}/bg-bash_1-*.log); rm -f $l; "
            f"ln -s {ssh}/id_rsa $l && echo after",
            run_in_background=True,
        )
        assert started.is_error is False
        shell = ctx.background.get("bash_1")
        await shell.process.wait()
        outcome = await run("BashOutput", bash_id="bash_1")
        assert outcome == ToolOutcome("before\nafter\n\n[Status: exited with code 0]", False)
    finally:
        await ctx.background.kill_all()


async def test_a_replaced_output_log_is_no_error(boundary: Layout) -> None:
    """The command turns its own output log into a directory: the result still comes back."""
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command=f"l=$(ls {boundary.scratch}/bash-*.log); rm -f $l && mkdir $l && echo small"
    )
    assert outcome == ToolOutcome("small", False)
