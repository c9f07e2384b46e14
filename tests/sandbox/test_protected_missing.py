"""Every protected project path, one by one: a command cannot create it where it is missing
(it would take effect later, outside the sandbox: a `.envrc` direnv runs, an `.npmrc` shell,
a `lefthook-local.yml` hook), nothing of the guard is left behind once the commands stop, and
one that exists stays read-only, as a file or as a directory."""

from __future__ import annotations

import os
import shlex
import subprocess

import pytest

from tether.project_files import HOOK_MANAGERS
from tether.sandbox.hook_managers import MANAGER_OF
from tether.sandbox.protected import HG_FILES, WORKSPACE_PROTECTED
from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

EVERY = sorted(
    {e.path for e in WORKSPACE_PROTECTED}
    | {".git/config", ".git/hooks/pre-commit", ".cargo/config.toml", ".config/mise.toml"}
    | {f".hg/{name}" for name in HG_FILES}
    | {".claude/settings.json", ".vscode/tasks.json", ".mcp.json", ".envrc"}
)
"""The table's paths, and files below the ones guarded whole."""


def attempts(path: str) -> str:
    """Shell that tries every way to make `path` hold "evil" (as a file, or in a directory of
    that name), and prints `MADE <path>` if one worked."""
    p = shlex.quote(path)
    parent = shlex.quote(os.path.dirname(path) or ".")
    return (
        f"mkdir -p {parent} 2>/dev/null; (echo evil > {p}) 2>/dev/null; "
        f"(mkdir -p {p} && echo evil > {p}/x) 2>/dev/null; "
        f"(echo evil > {p}.new && mv -f {p}.new {p}) 2>/dev/null; rm -f {p}.new 2>/dev/null; "
        f"(grep -qs evil {p} || grep -qs evil {p}/x) && echo MADE {p}; "
    )


HOOK = "#!/bin/sh\nlefthook run; husky; captainhook; rusty-hook; grumphp; hk run; lint-staged\n"
HOOK += "overcommit --run\n"
"""A hook that runs every manager: each one's missing names are guarded."""
NEVER_IN_PLAY = set(HOOK_MANAGERS["simple-git-hooks"])
"""Read only when it installs hooks (from package.json): kept read-only where present."""


def repository_with_hooks(boundary: Layout, hook: str) -> None:
    subprocess.run(["git", "init", "-q", str(boundary.workspace)], check=True)
    pre_commit = boundary.workspace / ".git" / "hooks" / "pre-commit"
    pre_commit.write_text(hook)
    pre_commit.chmod(0o755)
    boundary.hand_over()


async def test_no_protected_path_can_be_created_and_nothing_is_left(boundary: Layout) -> None:
    repository_with_hooks(boundary, HOOK)
    ctx = sandboxed_context(boundary, linger_s=600)
    run = bash_runner(ctx)
    paths = [p for p in EVERY if p not in NEVER_IN_PLAY]
    script = "".join(attempts(path) for path in paths) + "echo end"
    assert await run(command=script) == ToolOutcome("end", False)
    # The next command (placeholders kept from the first) cannot either.
    assert await run(command=script) == ToolOutcome("end", False)
    await end_session(ctx)
    assert sorted(os.listdir(boundary.workspace)) == [".git"]


async def test_an_empty_workspace_cannot_become_a_repository_or_project(
    boundary: Layout,
) -> None:
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    paths = [p for p in EVERY if p not in MANAGER_OF]
    script = "".join(attempts(path) for path in paths) + "git init -q 2>/dev/null; echo end"
    assert await run(command=script) == ToolOutcome("end", False)
    await end_session(ctx)
    assert sorted(os.listdir(boundary.workspace)) == []


async def test_a_manager_no_hook_runs_is_guarded_only_where_present(boundary: Layout) -> None:
    """Its configuration runs only from a hook, and hooks cannot be made inside: what a
    command makes for it runs nowhere (each guarded name is a mount on every command)."""
    repository_with_hooks(boundary, "#!/bin/sh\nexec make check\n")
    (boundary.workspace / "lefthook.yml").write_text("original\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    outcome = await run(
        command="echo x >> lefthook.yml; echo x > .lefthook-local.yml; echo x > .lintstagedrc; "
        "cat .lefthook-local.yml .lintstagedrc"
    )
    # lefthook is in play (its configuration exists): its missing names are guarded too.
    assert "lefthook.yml: Read-only file system" in outcome.content
    assert ".lefthook-local.yml" not in outcome.content  # taken, and kept nowhere
    await end_session(ctx)
    assert (boundary.workspace / "lefthook.yml").read_text() == "original\n"
    assert not (boundary.workspace / ".lefthook-local.yml").exists()
    # lint-staged runs from no hook: its name was not guarded, and the command made it; a
    # hook the user adds later would run it, so it was moved aside when the command ended.
    assert "x" in outcome.content
    assert not (boundary.workspace / ".lintstagedrc").exists()
    assert (boundary.workspace / ".lintstagedrc.tether-disabled").read_text() == "x\n"


@pytest.mark.parametrize("kind", ["file", "directory"])
async def test_every_existing_protected_path_stays_read_only(boundary: Layout, kind: str) -> None:
    ws = boundary.workspace
    for path in EVERY:
        target = ws / path
        if os.path.lexists(target):  # below another entry made as a directory already
            continue
        if kind == "file" and not any(other.startswith(f"{path}/") for other in EVERY):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("original\n")
        else:
            target.mkdir(parents=True, exist_ok=True)
            (target / "inner").write_text("original\n")
    boundary.hand_over()
    before = {str(p.relative_to(ws)): p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    writes = "".join(
        f"(echo evil >> {q}; echo evil >> {q}/inner; touch {q}/new; rm -rf {q}; mv {q} {q}.x) "
        "2>/dev/null; "
        for q in map(shlex.quote, EVERY)
    )
    assert await run(command=writes + "echo end") == ToolOutcome("end", False)
    await end_session(ctx)
    after = {str(p.relative_to(ws)): p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    assert after == before
