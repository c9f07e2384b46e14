"""Files that change what runs later, outside the sandbox, are read-only inside it, whether
they exist or not, and nothing the sandbox needed for that is left in the workspace."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tether.tools.registry import ToolOutcome

from .conftest import (
    Layout,
    SandboxWrapper,
    bash_runner,
    end_session,
    home_in_workspace,
    needs_bwrap,
    sandboxed_context,
    snapshot,
    wait_until,
)

pytestmark = needs_bwrap

EXISTING = [
    ".git/config",
    ".git/hooks/pre-commit",
    ".git/modules/lib/config",
    ".git/modules/vendor/dep/hooks/post-checkout",
    ".git/worktrees/feature/config.worktree",
    ".git/info/attributes",
    ".git/info/exclude",
    ".git/modules/lib/info/attributes",
    ".tether/settings.json",
    ".tether/hooks.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/skills/s/SKILL.md",
    ".claude/agents/a.md",
    ".claude/commands/c.md",
    ".mcp.json",
    "config/mcp_config.yaml",
    ".agents/skills/s/SKILL.md",
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".idea/workspace.xml",
    ".envrc",
    ".gitmodules",
]

MISSING = [
    ".mcp.json",
    ".claude/settings.json",
    ".claude/hooks/h.sh",
    ".tether/settings.local.json",
    ".agents/skills/x/SKILL.md",
    ".vscode/tasks.json",
    ".idea/runConfigurations/x.xml",
    "config/mcp_config.yaml",
    ".git/hooks/post-checkout",
    ".git/commondir",
    ".git/config.worktree",
    ".git/info/attributes",
    ".git/info/sparse-checkout",
]

ATTACKS = [
    "echo evil >> {p}",
    "printf 'evil\\n' > {p}",
    "rm -rf {p}",
    "mv {p} {p}.moved",
    "ln -sf /tmp/evil {p}",
    "cp /etc/hostname {p}",
    "touch {p}.new && mv -f {p}.new {p}",
    'python3 -c \'open("{p}", "a").write("evil")\'',
]


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True)


def git_repository(ws: Path) -> None:
    git("init", "-q", cwd=ws)
    for relative in EXISTING:
        path = ws / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text("original\n")
    (ws / ".git" / "modules" / "lib" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / ".git" / "modules" / "vendor" / "dep" / "HEAD").write_text("ref: refs/heads/main\n")


@pytest.mark.parametrize("attack", ATTACKS)
async def test_existing_protected_files_cannot_be_changed(boundary: Layout, attack: str) -> None:
    ws = boundary.workspace
    git_repository(ws)
    before = snapshot(ws)
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    script = "; ".join(f"({attack.format(p=p)}) 2>/dev/null" for p in EXISTING)
    outcome = await run(command=f"{script}; echo done")
    assert outcome.content.endswith("done")
    await end_session(ctx)
    after = snapshot(ws)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    # Only what an attack may legitimately leave: a `.new` or `.moved` file beside the target.
    assert {k for k in changed if not k.endswith((".new", ".moved"))} == set()
    assert {k for k in after if k.endswith(".moved")} == set()


@pytest.mark.parametrize("relative", MISSING)
async def test_missing_protected_files_cannot_be_created(boundary: Layout, relative: str) -> None:
    ws = boundary.workspace
    git("init", "-q", cwd=ws)
    (ws / ".git" / "hooks").mkdir(exist_ok=True)
    for sample in (ws / ".git" / "hooks").iterdir():
        sample.unlink()
    before = snapshot(ws)
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    target = ws / relative
    outcome = await run(
        command=f"mkdir -p {target.parent} 2>/dev/null; (echo evil > {target}) 2>/dev/null; "
        f"(mkdir -p {target}) 2>/dev/null; grep -qs evil {target} && echo CREATED; echo done"
    )
    assert outcome == ToolOutcome("done", False)
    # Nothing left behind: the workspace is as it was, placeholders and all.
    await end_session(ctx)
    assert snapshot(ws) == before


async def test_git_config_cannot_gain_a_program_to_run(boundary: Layout) -> None:
    """The measured attack: core.fsmonitor set from inside runs at the user's next git status."""
    ws = boundary.workspace
    git("init", "-q", cwd=ws)
    marker = boundary.outside / "fsmonitor-ran"
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(
        command=f"git config core.fsmonitor 'touch {marker}; false' 2>&1 | tail -1; "
        f"git config core.hooksPath hooks2 2>/dev/null; "
        # Renaming the git directory away to write a new one must fail too.
        "mv .git .git-old 2>/dev/null; mkdir -p .git2 && echo done"
    )
    assert "done" in outcome.content.split("\n"), outcome.content
    assert "git could not write" in outcome.content, outcome.content  # the model is told
    assert (ws / ".git" / "config").is_file()
    assert not (ws / ".git-old").exists()
    git("-c", "safe.directory=*", "status", cwd=ws)
    assert not marker.exists()


async def test_no_repository_cannot_be_made_where_there_is_none(boundary: Layout) -> None:
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(command="git init -q . 2>/dev/null || echo refused")
    assert outcome == ToolOutcome("refused", False)
    await end_session(ctx)
    assert os.listdir(boundary.workspace) == []


async def test_settings_cannot_turn_the_sandbox_off(boundary: Layout) -> None:
    """The measured attack: settings written from inside turned the sandbox off next time."""
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    await run(
        command="for d in .tether .claude; do mkdir -p $d; "
        """echo '{"sandbox": {"enabled": false}}' > $d/settings.json; done 2>/dev/null; true"""
    )
    await end_session(ctx)
    assert os.listdir(boundary.workspace) == []


async def test_writable_home_keeps_its_startup_files(boundary: Layout) -> None:
    """A workspace that contains the home (or a writable home) does not open its rc files."""
    boundary = home_in_workspace(boundary)
    home = boundary.home
    (home / ".bashrc").write_text("original\n")
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(
        command=f"(echo evil >> {home}/.bashrc; echo evil > {home}/.bash_profile; "
        f"echo evil > {home}/.gitconfig) 2>/dev/null; echo done"
    )
    assert outcome == ToolOutcome("done", False)
    await end_session(ctx)
    assert sorted(os.listdir(home)) == [".bashrc", ".tether"]
    assert (home / ".bashrc").read_text() == "original\n"


async def test_ordinary_files_stay_writable(boundary: Layout) -> None:
    ws = boundary.workspace
    git("init", "-q", cwd=ws)
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(
        command="mkdir -p src config && echo x > src/a.py && echo y > config/app.yaml && "
        "git add -A && git -c user.name=t -c user.email=t@t commit -qm one && git log --oneline "
        "| wc -l"
    )
    assert outcome == ToolOutcome("1", False)
    assert (ws / "config" / "app.yaml").read_text() == "y\n"


async def test_parallel_commands_keep_each_other_protected(boundary: Layout) -> None:
    """A command that ends does not lift the protection of one still running, even when the
    placeholders are to go at once; the last to end lets them go."""
    ws = boundary.workspace
    ctx = sandboxed_context(boundary, linger_s=0.1)
    run = bash_runner(ctx)
    go = ws / "go"
    slow = asyncio.ensure_future(
        run(
            command=f"touch started; while [ ! -e {go} ]; do sleep 0.05; done; "
            "(echo evil > .mcp.json) 2>/dev/null; grep -qs evil .mcp.json && echo CREATED; "
            "echo slow"
        )
    )
    assert await wait_until((ws / "started").exists)
    assert await run(command="echo quick") == ToolOutcome("quick", False)
    assert isinstance(ctx.command_wrapper, SandboxWrapper)
    await asyncio.to_thread(ctx.command_wrapper.sandbox.close)  # removal asked for meanwhile
    assert (ws / ".mcp.json").exists()  # still the slow command's placeholder
    go.touch()
    assert await slow == ToolOutcome("slow", False)
    assert await wait_until(lambda: sorted(os.listdir(ws)) == ["go", "started"])


def test_nested_listings_are_read_again_only_when_a_directory_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tether.sandbox import nested, protected

    root = tmp_path / "ws"
    for name in ("a", "b", "c"):
        (root / name / "src").mkdir(parents=True)
    (root / "a" / ".git").mkdir()
    old = time.time() - 10  # changed long ago: its listing may be kept
    for directory in (root, root / "a", root / "b", root / "c", root / "b" / "src"):
        os.utime(directory, (old, old))
    time.sleep(protected.RACY_NS / 1e9 + 0.05)  # the change times age past the racy window
    first = {p for p, _ in nested.nested_protected(root)}
    assert root / "a" / ".claude" in first
    listed: list[str] = []
    real_scandir = os.scandir

    def counting(path: str) -> Any:
        listed.append(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    assert {p for p, _ in nested.nested_protected(root)} == first
    assert listed == []  # nothing changed: nothing read again
    # A project appears below `b`, and its mtime is set back: the change time still moves.
    (root / "b" / "src" / ".mcp.json").write_text("{}")
    os.utime(root / "b" / "src", (old, old))
    again = {p for p, _ in nested.nested_protected(root)}
    assert listed == [str(root / "b" / "src")]
    assert root / "b" / "src" / ".claude" in again


async def test_git_checks_out_protected_files_the_repository_had(boundary: Layout) -> None:
    """What the permission engine lets a sandboxed session run under `Bash(git *)` (`git
    checkout topic`, `git merge`, `git reset --hard`) of a branch the repository had before the
    session: its settings are the repository's own, written whole (`repo_content.py`); the
    tree is never left half checked out."""
    ws = boundary.workspace
    ident = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "safe.directory=*"]

    def git(*args: str) -> None:
        subprocess.run(["git", *ident, *args], cwd=ws, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    (ws / "README").write_text("readme\n")
    git("add", "README")
    git("commit", "-qm", "one")
    git("checkout", "-qb", "topic")
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text('{"hooks": {}}\n')
    (ws / ".mcp.json").write_text('{"mcpServers": {}}\n')
    (ws / "code.py").write_text("x = 1\n")
    git("add", "-A")
    git("commit", "-qm", "topic")
    git("checkout", "-q", "main")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    for command in ("checkout -q topic", "checkout -q main", "merge -q topic", "reset -q --hard"):
        outcome = await run(command=f"git -c safe.directory='*' {command}")
        assert not outcome.is_error, (command, outcome.content)
    assert (ws / ".claude" / "settings.json").read_text() == '{"hooks": {}}\n'
    assert (ws / ".mcp.json").read_text() == '{"mcpServers": {}}\n'
    await end_session(ctx)
    assert (ws / ".mcp.json").is_file()


async def test_hook_managers_configuration_is_read_only(boundary: Layout) -> None:
    """What lefthook, lint-staged, simple-git-hooks and overcommit run at the next commit:
    read-only where present (a missing one gets no placeholder: see `HOOK_MANAGERS`)."""
    names = ["lefthook.yml", "lefthook-local.yml", ".lintstagedrc.json"]
    names += [".simple-git-hooks.json", ".overcommit.yml"]
    for name in names:
        (boundary.workspace / name).write_text("original\n")
    boundary.hand_over()
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(command=f"for f in {' '.join(names)}; do echo x >> $f; done; echo end")
    assert (
        outcome.content.count("Read-only file system"),
        [(boundary.workspace / n).read_text() for n in names],
    ) == (5, ["original\n"] * 5)


async def test_other_hook_managers_configuration_is_read_only(boundary: Layout) -> None:
    """lefthook's `.config/` names, husky v4, CaptainHook, rusty-hook, GrumPHP and hk read
    their file at each hook run as well: read-only where present."""
    names = [".config/lefthook.yml", ".config/lefthook-local.yml", ".config/lefthook.toml"]
    names += [".huskyrc", ".huskyrc.json", ".huskyrc.js", "husky.config.js"]
    names += ["captainhook.json", ".rusty-hook.toml", "grumphp.yml", "hk.pkl"]
    (boundary.workspace / ".config").mkdir()
    for name in names:
        (boundary.workspace / name).write_text("original\n")
    boundary.hand_over()
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(command=f"for f in {' '.join(names)}; do echo x >> $f; done; echo end")
    assert outcome.content.count("Read-only file system") == len(names)
    assert [(boundary.workspace / n).read_text() for n in names] == ["original\n"] * len(names)


async def test_tool_configuration_that_runs_programs_is_read_only(boundary: Layout) -> None:
    """What makes an ordinary command run another program (`.npmrc`'s script shell, yarn's
    `yarnPath`, cargo's rustc wrapper, mise's hooks, a `path:` version, Mercurial's hooks, a
    dev container's commands): read-only where present, and not made where missing: an
    empty file that keeps no write (`.yarnrc`, `.envrc`), a read-only `.cargo` as a whole
    (cargo would fail on a directory at `.cargo/config`), an empty `hgrc` in Mercurial's own
    directory."""
    names = [".npmrc", ".yarnrc.yml", ".cargo/config.toml", "mise.toml", ".mise.toml"]
    names += [".tool-versions", ".hg/hgrc", ".devcontainer/devcontainer.json"]
    names += ["rust-toolchain.toml", ".yarn/releases/yarn-4.cjs"]
    for name in names:
        (boundary.workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (boundary.workspace / name).write_text("original\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(command=f"for f in {' '.join(names)}; do echo x >> $f; done; echo end")
    assert outcome.content.count("Read-only file system") == len(names)
    assert [(boundary.workspace / n).read_text() for n in names] == ["original\n"] * len(names)
    missing = ".yarnrc .cargo/config .hg/hgrc-not-shared .envrc"
    outcome = await run(
        command=f"for f in {missing}; do (echo x > $f) 2>/dev/null; test -s $f && echo MADE $f; "
        "done; test -c .yarnrc && test ! -s .yarnrc && test -f .hg/hgrc-not-shared && "
        "test ! -s .hg/hgrc-not-shared; "
        "cat .cargo/config 2>&1 | grep -c 'No such file'"
    )
    assert outcome == ToolOutcome("1", False)
    await end_session(ctx)
    for name in missing.split():
        assert not os.path.lexists(boundary.workspace / name)
