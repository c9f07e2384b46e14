"""A command cannot make its own content pass for the repository's: replace refs, grafts and
refs it moves are not history, and a link is not the file its target's text once was."""

from __future__ import annotations

import os

from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context
from .test_repo_content import IDENTITY, git, repository_with_feature

pytestmark = needs_bwrap

PLANT = (
    "echo 'node-options=--require ./evil.js' > .npmrc && git add -f .npmrc && "
    f"t=$(git write-tree) && c=$(git {IDENTITY} commit-tree -m x $t) && "
)


async def forged(boundary: Layout, forge: str) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command="echo first")
    assert "first" in out.content, out.content
    out = await run(command=PLANT + forge + " && git reset -q; echo end")
    assert "moved aside" in out.content, out.content
    assert not (ws / ".npmrc").exists()
    assert (ws / f".npmrc{DISABLED}").read_text() == "node-options=--require ./evil.js\n"
    await end_session(ctx)


async def test_a_replace_ref_does_not_make_history(boundary: Layout) -> None:
    await forged(boundary, "git replace -f HEAD $c")


async def test_a_graft_does_not_make_history(boundary: Layout) -> None:
    await forged(boundary, 'echo "$(git rev-parse HEAD) $c" >> .git/info/grafts')


async def test_a_branch_moved_in_the_session_is_not_history(boundary: Layout) -> None:
    await forged(boundary, "git update-ref refs/heads/feature $c")


async def test_a_link_whose_target_text_was_the_file_is_not_the_file(boundary: Layout) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    plant = (
        "python3 -c \"import os; open('save-exact=true\\n', 'w').write('evil'); "
        "os.symlink('save-exact=true\\n', '.npmrc')\"; echo end"
    )
    out = await run(command=plant)
    assert "moved aside" in out.content, out.content
    assert not (ws / ".npmrc").is_symlink()
    await end_session(ctx)


async def test_a_link_the_history_holds_is_still_checked_out(boundary: Layout) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    git(ws, "checkout", "-qb", "linked")
    (ws / "rc").write_text("layout python\n")
    (ws / ".envrc").unlink(missing_ok=True)
    (ws / ".envrc").symlink_to("rc")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "link")
    git(ws, "checkout", "-q", "main")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command="git checkout -q linked && echo CHECKOUT-OK")
    assert "CHECKOUT-OK" in out.content, out.content
    assert "moved aside" not in out.content, out.content
    assert os.readlink(ws / ".envrc") == "rc"
    await end_session(ctx)
