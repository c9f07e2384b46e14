"""What a command forges in the store is gone when it ends, so the user's own git outside does
not write it later either: a forged loose object or pack is moved aside, an alternates file or
replace ref it made is undone (the history check never trusted them; the user's git did)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context
from .test_repo_content import git, repository_with_feature
from .test_repo_objects_forged import PLANT, PLANTED, with_forger

pytestmark = needs_bwrap

REPLACE = (
    "printf 'evil\\n' > $TMPDIR/e && "
    "git replace $(git rev-parse feature:.npmrc) $(git hash-object -w $TMPDIR/e) && "
    "echo 'forged replace'"
)


def users_checkout(ws: Path) -> str | None:
    """The user outside, after the session: `git checkout feature`; `.npmrc` as it then is."""
    for aside in ws.glob(f".npmrc{DISABLED}*"):
        aside.unlink()
    subprocess.run(
        ["git", "-c", "safe.directory=*", "checkout", "-q", "feature"],
        cwd=ws,
        capture_output=True,
        check=False,
    )
    npmrc = ws / ".npmrc"
    return npmrc.read_text() if npmrc.exists() else None


async def forged_in_session(boundary: Layout, command: str) -> str:
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    out = await bash_runner(ctx)(command=command)
    await end_session(ctx)
    return out.content


@pytest.mark.parametrize("how", ["loose", "pack", "bigpack", "alternates", "commit"])
async def test_a_forged_object_is_not_left_for_the_users_git(boundary: Layout, how: str) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    with_forger(ws)
    out = await forged_in_session(boundary, f"{PLANT} {how}")
    assert f"forged {how}" in out, out
    assert users_checkout(ws) != PLANTED


async def test_a_replace_ref_is_undone_and_told(boundary: Layout) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    out = await forged_in_session(boundary, REPLACE)
    assert "forged replace" in out, out
    assert "git replace" in out, out
    assert git(ws, "replace", "-l") == ""
    assert users_checkout(ws) == "save-exact=true\n"


async def test_a_repack_and_commit_graph_leave_a_working_repository(boundary: Layout) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    out = await forged_in_session(
        boundary, "git gc -q && git commit-graph write && git log --oneline | wc -l"
    )
    assert "moved aside objects" not in out, out
    assert git(ws, "fsck", "--no-dangling") == ""
    assert users_checkout(ws) == "save-exact=true\n"
