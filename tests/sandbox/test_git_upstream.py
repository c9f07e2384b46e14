"""`.git/config` stays read-only in the sandbox (as in Claude Code's): a branch made from a
remote one cannot record its upstream there. git 2.39 then makes and checks out the branch,
exits 0 and says it tracks the upstream: the model is told it does not, and how the user
records it. Measured before: nothing said, "set up to track" taken at its word."""

from __future__ import annotations

from pathlib import Path

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context
from .test_repo_content import git, repository_with_feature

pytestmark = needs_bwrap


def clone(boundary: Layout) -> Path:
    source = boundary.outside / "source"
    repository_with_feature(source)
    git(boundary.workspace, "clone", "-q", f"file://{source}", "repo")
    boundary.hand_over()
    return boundary.workspace / "repo"


async def test_a_branch_made_from_a_remote_one_is_said_not_to_track_it(
    boundary: Layout,
) -> None:
    repo = clone(boundary)
    config = (repo / ".git" / "config").read_text()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(
        command="cd repo && git switch -c x origin/feature && git branch --show-current"
    )
    assert "\nx\n" in out.content, out.content
    assert "could not write" in out.content, out.content
    assert "Branch 'x' does not track 'origin/feature'" in out.content, out.content
    assert "`git branch --set-upstream-to=origin/feature x`" in out.content, out.content
    assert (repo / ".git" / "config").read_text() == config
    out = await run(command="git switch -c y --no-track origin/feature && echo ok")  # in repo
    assert out.content.endswith("ok"), out.content
    assert "could not write" not in out.content, out.content
    await end_session(ctx)


async def test_a_remote_added_inside_is_said_not_to_be_recorded(boundary: Layout) -> None:
    clone(boundary)
    ctx = sandboxed_context(boundary)
    out = await bash_runner(ctx)(command="cd repo && git remote add other ../elsewhere")
    assert "could not write" in out.content or "could not lock" in out.content, out.content
    assert "git's configuration read-only" in out.content, out.content
    assert "does not track" not in out.content, out.content
    await end_session(ctx)
