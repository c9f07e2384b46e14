"""A linked worktree a command adds (`git worktree add wt feature`) is of the recorded
repository: its files are checked against that history, as the main work tree's are."""

from __future__ import annotations

from .conftest import Layout, needs_bwrap
from .test_made_refs import session
from .test_repo_content import git, repository_with_feature

pytestmark = needs_bwrap


async def test_a_linked_worktree_of_a_recorded_branch_keeps_its_start_files(
    boundary: Layout,
) -> None:
    """`git worktree add wt feature`: the new work tree's files are the repository's own
    history, as the same checkout in the main work tree is."""
    ws = boundary.workspace
    repository_with_feature(ws)
    out = await session(boundary, "git worktree add -q wt feature && echo ADDED")
    assert "ADDED" in out, out
    assert "moved aside" not in out, out
    assert (ws / "wt" / ".envrc").read_text() == "layout python\n"
    assert git(ws / "wt", "-c", "safe.directory=*", "status", "--short") == ""
