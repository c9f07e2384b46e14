"""A stopped rebase a command leaves runs nothing of the command's at the user's `git rebase
--continue` outside: the `exec` lines it added to the todo are stripped (kept beside it), the
user's own and the rest of the rebase are left."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context
from .test_repo_content import IDENTITY, git

pytestmark = needs_bwrap

STOP = f'GIT_SEQUENCE_EDITOR="sed -i 1ibreak" git {IDENTITY} rebase -q -i HEAD~1; '


def two_commits(ws: Path) -> None:
    git(ws, "init", "-q", "-b", "main")
    for name in ("a", "b"):
        (ws / name).write_text(name)
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", name)


def continued(ws: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "safe.directory=*", *IDENTITY.split(), "rebase", "--continue"],
        cwd=ws,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_EDITOR": "true"},
    )


async def test_exec_lines_a_command_adds_to_a_stopped_rebase_are_stripped(
    boundary: Layout,
) -> None:
    ws = boundary.workspace
    two_commits(ws)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    proof = boundary.outside / "ran"
    todo = ws / ".git" / "rebase-merge" / "git-rebase-todo"
    out = await bash_runner(ctx)(
        command=STOP + f"echo 'exec touch {proof}' >> {todo}; x=$(cat {todo}); echo STOPPED"
    )
    await end_session(ctx)
    assert "STOPPED" in out.content, out.content
    assert "exec line" in out.content, out.content
    assert b"exec" not in todo.read_bytes()
    assert b"exec touch" in todo.with_name(todo.name + DISABLED).read_bytes()
    done = continued(ws)
    assert done.returncode == 0, done.stderr
    assert not proof.exists()
    assert not (ws / ".git" / "rebase-merge").exists()  # the rebase finished


def users_stopped_rebase(ws: Path) -> None:
    editor = ws.parent / "editor.sh"
    editor.write_text('sed -i 1ibreak "$1"; echo \'exec echo MINE > mine\' >> "$1"\n')
    subprocess.run(
        ["git", "-c", "safe.directory=*", *IDENTITY.split(), "rebase", "-q", "-i", "HEAD~1"],
        cwd=ws,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_SEQUENCE_EDITOR": f"sh {editor}"},
    )


async def test_the_users_own_stopped_rebase_keeps_its_exec_lines(boundary: Layout) -> None:
    ws = boundary.workspace
    two_commits(ws)
    users_stopped_rebase(ws)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    out = await bash_runner(ctx)(command="git status --short; echo LOOKED")
    await end_session(ctx)
    assert "LOOKED" in out.content, out.content
    assert "exec line" not in out.content, out.content
    todo = ws / ".git" / "rebase-merge" / "git-rebase-todo"
    assert b"exec echo MINE" in todo.read_bytes()
