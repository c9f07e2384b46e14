"""Wherever the home is writable in the sandbox (the workspace holds it, `sandbox.writable`
names it or a directory in it), what tether, Claude Code, shells, git and other tools read at
their next start is read-only, existing or missing; and so is every writable directory's own
project configuration, nested projects' included."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tether.home_files import HOME_SELF_MODIFYING
from tether.permissions import defaults
from tether.project_files import PROJECT_SELF_MODIFYING
from tether.sandbox.protected import HOME_PROTECTED, WHOLE_DIRECTORIES, WORKSPACE_PROTECTED
from tether.tools.registry import ToolOutcome

from .conftest import (
    Layout,
    bash_runner,
    end_session,
    home_in_workspace,
    needs_bwrap,
    sandboxed_context,
    snapshot,
)

pytestmark = needs_bwrap

ATTACK = (
    "(mkdir -p $(dirname {p}); echo evil >> {p}; mkdir -p {p}; echo evil > {p}/x; "
    "rm -rf {p}; mv {p} {p}.moved; ln -sfn /tmp/evil {p}) 2>/dev/null"
)
EXISTING = {
    ".claude.json": '{"projects": {}}\n',
    ".bashrc": "# rc\n",
    ".gitconfig": "[user]\n\tname = u\n",
    ".config/git/config": "[core]\n",
    ".ssh/config": "Host *\n",
    ".npmrc": "registry=https://registry.example\n",
    ".local/bin/tool": "#!/bin/sh\n",
    ".claude/settings.json": "{}\n",
}


def with_scratch(layout: Layout) -> Layout:
    """The session's temporary directory made beforehand (here it lies in the home)."""
    (layout.scratch / "tmp").mkdir(parents=True, exist_ok=True)
    layout.hand_over()
    return layout


def git_init(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def attack_all(home: Path, names: list[str]) -> str:
    return "; ".join(ATTACK.format(p=home / name) for name in names) + "; echo done"


COMMAND_BYTES = 64 * 1024
"""Well under the kernel's 128 KiB for one argument (bwrap is given the command as one): the
attacks on every protected name in one command came within a few bytes of it, and a longer
temporary directory (a pytest-xdist worker's) went past it."""


def attack_batches(home: Path, names: list[str]) -> list[str]:
    """`attack_all` over `names`, split into commands of at most `COMMAND_BYTES` each."""
    batches: list[list[str]] = [[]]
    for name in names:
        if batches[-1] and len(attack_all(home, [*batches[-1], name])) > COMMAND_BYTES:
            batches.append([])
        batches[-1].append(name)
    return [attack_all(home, batch) for batch in batches]


async def test_missing_home_files_cannot_be_created(boundary: Layout) -> None:
    """The measured defect: `~/.claude.json` written from inside trusted another repository
    and started a server everywhere. Every entry of the shared table, and `.config`."""
    layout = with_scratch(home_in_workspace(boundary))
    before = snapshot(layout.home)
    ctx = sandboxed_context(layout)
    run = bash_runner(ctx)
    names = [entry.path for entry in HOME_PROTECTED]
    for command in attack_batches(layout.home, names):
        outcome = await run(command=command)
        assert outcome == ToolOutcome("done", False)
    await end_session(ctx)
    after = snapshot(layout.home)
    assert {k for k in after.keys() - before.keys() if not k.endswith(".moved")} == set()


async def test_existing_home_files_cannot_be_changed(boundary: Layout) -> None:
    layout = with_scratch(home_in_workspace(boundary))
    for name, text in EXISTING.items():
        (layout.home / name).parent.mkdir(parents=True, exist_ok=True)
        (layout.home / name).write_text(text)
    layout.hand_over()
    before = snapshot(layout.home)
    ctx = sandboxed_context(layout)
    run = bash_runner(ctx)
    outcome = await run(command=attack_all(layout.home, list(EXISTING)))
    assert outcome == ToolOutcome("done", False)
    await end_session(ctx)
    after = snapshot(layout.home)
    assert {k: v for k, v in after.items() if not k.endswith(".moved")} == before


async def test_a_writable_config_directory_keeps_git_config_read_only(boundary: Layout) -> None:
    """`~/.config` is hidden; made writable through `sandbox.writable`, what is protected in
    it is read-only again, and the rest is the user's to write."""
    home = boundary.home
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text("[core]\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary, writable=[str(home / ".config")])
    run = bash_runner(ctx)
    outcome = await run(
        command=f"(echo evil >> {home}/.config/git/config; mkdir {home}/.config/systemd) "
        f"2>/dev/null; echo ok > {home}/.config/app.toml && cat {home}/.config/git/config"
    )
    assert outcome == ToolOutcome("[core]", False)
    await end_session(ctx)
    assert sorted(os.listdir(home / ".config")) == ["app.toml", "git"]


async def test_git_runs_in_a_home_without_a_gitconfig(boundary: Layout) -> None:
    """A missing `~/.gitconfig` is guarded by an empty file, which git reads as no settings
    (a directory there would stop every git command)."""
    layout = home_in_workspace(boundary)
    git_init(layout.workspace)
    layout.hand_over()
    ctx = sandboxed_context(layout)
    run = bash_runner(ctx)
    outcome = await run(
        command=f"HOME={layout.home} git -c safe.directory='*' status --porcelain "
        "--untracked-files=no && echo ok"
    )
    assert outcome == ToolOutcome("ok", False)
    await end_session(ctx)
    assert not (layout.home / ".gitconfig").exists()


async def test_path_and_claude_config_directories_are_guarded(boundary: Layout) -> None:
    """A program put in a PATH directory of the home shadows one the user runs later; Claude
    Code's `CLAUDE_CONFIG_DIR` holds its settings and `.claude.json`."""
    home = boundary.home
    cargo_bin, claude_dir = home / ".cargo" / "bin", boundary.workspace / "claude-config"
    environ = {"PATH": f"{cargo_bin}:/usr/bin:/bin", "CLAUDE_CONFIG_DIR": str(claude_dir)}
    ctx = sandboxed_context(boundary, environ)
    run = bash_runner(ctx)
    outcome = await run(
        command=f"(mkdir -p {cargo_bin}; echo evil > {cargo_bin}/git; mkdir -p {claude_dir}; "
        f"echo '{{}}' > {claude_dir}/.claude.json) 2>/dev/null; echo done"
    )
    assert outcome == ToolOutcome("done", False)
    await end_session(ctx)
    assert (os.listdir(home), os.listdir(boundary.workspace)) == ([], [])


def make_repository(root: Path, *, missing_mcp: bool = False) -> None:
    git_init(root)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{}\n")
    if not missing_mcp:
        (root / ".mcp.json").write_text('{"mcpServers": {}}\n')


PROJECT_FILES = [".git/config", ".git/hooks/pre-commit", ".claude/settings.json", ".mcp.json"]


async def test_added_directories_that_are_or_hold_projects_are_protected(
    boundary: Layout,
) -> None:
    """`--add-dir` (writable in the sandbox): a repository, and a directory of repositories;
    and a repository nested in the workspace."""
    added, parent = boundary.outside / "lib", boundary.outside / "src"
    make_repository(added, missing_mcp=True)
    for project in (
        parent / "one",
        parent / "group" / "two",
        boundary.workspace / "vendor" / "dep",
    ):
        project.mkdir(parents=True)
        make_repository(project)
    boundary.hand_over()
    before = {root: snapshot(root) for root in (added, parent, boundary.workspace)}
    targets = [added / p for p in PROJECT_FILES]
    for project in (
        parent / "one",
        parent / "group" / "two",
        boundary.workspace / "vendor" / "dep",
    ):
        targets += [project / p for p in PROJECT_FILES]
    ctx = sandboxed_context(boundary, writable=[str(added), str(parent)])
    run = bash_runner(ctx)
    script = "; ".join(
        f"(echo evil >> {t}; mv {t} {t}.moved; mkdir -p {t}/x) 2>/dev/null" for t in targets
    )
    outcome = await run(command=f"{script}; echo ok > {added}/code.py && echo done")
    assert outcome == ToolOutcome("done", False)
    await end_session(ctx)
    assert snapshot(added) == {**before[added], "code.py": b"ok\n"}
    assert (snapshot(parent), snapshot(boundary.workspace)) == (
        before[parent],
        before[boundary.workspace],
    )


def test_the_sandbox_guards_what_the_permission_engine_protects() -> None:
    """One home table and one project table for both layers: the sandbox keeps every project
    entry it can (the others say why in `tether.project_files`), the engine asks about all."""
    assert defaults.HOME_SELF_MODIFYING is HOME_SELF_MODIFYING
    assert {name for name, _ in HOME_SELF_MODIFYING} <= {e.path for e in HOME_PROTECTED}
    kept = {
        e.path.split("/")[0] if e.path.split("/")[0] in WHOLE_DIRECTORIES else e.path
        for e in PROJECT_SELF_MODIFYING
        if e.sandbox == "guard"
    }
    assert {e.path for e in WORKSPACE_PROTECTED} == kept
    assert all(e.placeholder is not None for e in WORKSPACE_PROTECTED)  # missing: guarded
    engine = {entry for entry, _ in defaults.SELF_MODIFYING}
    assert engine == {e.path for e in PROJECT_SELF_MODIFYING if e.engine}


NESTED_MISSING = [
    ".claude/settings.json",
    ".tether/settings.local.json",
    ".mcp.json",
    "config/mcp_config.yaml",
    ".agents/skills/s/SKILL.md",
    ".vscode/tasks.json",
    ".pre-commit-config.yaml",
]


async def test_missing_protected_files_of_nested_projects_cannot_be_created(
    boundary: Layout,
) -> None:
    """A repository below the workspace, one three levels down, one marked only by its
    agent settings, and one in an added directory: none gains a file that a session started
    there, or its editor, would obey. A directory with only an editor's settings keeps
    those read-only."""
    added = boundary.outside / "repos"
    projects = [
        boundary.workspace / "third_party" / "lib",
        boundary.workspace / "tools" / "a" / "b",
        added / "service",
    ]
    for project in projects:
        project.mkdir(parents=True)
        git_init(project)
        (project / "README").write_text("readme\n")
    agent_only = boundary.workspace / "docs" / "site"
    (agent_only / ".claude").mkdir(parents=True)
    projects.append(agent_only)
    editor_only = boundary.workspace / "docs" / "ide"
    (editor_only / ".idea").mkdir(parents=True)
    boundary.hand_over()
    before = {root: snapshot(root) for root in (boundary.workspace, added)}
    targets = [p / t for p in projects for t in [*NESTED_MISSING, ".git/hooks/post-checkout"]]
    targets.append(editor_only / ".idea" / "runConfigurations" / "x.xml")
    ctx = sandboxed_context(boundary, writable=[str(added)])
    run = bash_runner(ctx)
    script = "; ".join(ATTACK.format(p=t) for t in targets)
    outcome = await run(command=f"{script}; echo ok > {projects[0]}/README && echo done")
    assert outcome == ToolOutcome("done", False)
    await end_session(ctx)
    inside = snapshot(boundary.workspace)
    assert inside == {**before[boundary.workspace], "third_party/lib/README": b"ok\n"}
    assert snapshot(added) == before[added]  # nothing made, nothing left behind


async def test_a_project_made_by_one_command_is_guarded_at_the_next(boundary: Layout) -> None:
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    made = boundary.workspace / "pkg" / "new"
    first = await run(command=f"mkdir -p {made}/.git && echo made")
    assert first == ToolOutcome("made", False)
    second = await run(command=f"(mkdir {made}/.claude || echo refused) 2>/dev/null")
    assert second == ToolOutcome("refused", False)
    await end_session(ctx)
    assert sorted(os.listdir(made)) == [".git"]
