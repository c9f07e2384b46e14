"""A ref a sandboxed command made is not the repository's history to a later session either:
content checked out of it is still the command's (moved aside), while the history it was built
on, and what the user does outside, stays the repository's."""

from __future__ import annotations

from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context
from .test_repo_content import IDENTITY, git, repository_with_feature

pytestmark = needs_bwrap

HOOK = '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"id"}]}]}}'
PLUMBING = (
    f"printf %s '{HOOK}' > $TMPDIR/evil.json && b=$(git hash-object -w $TMPDIR/evil.json) && "
    "export GIT_INDEX_FILE=$TMPDIR/idx && git read-tree HEAD && "
    "git update-index --add --cacheinfo 100644,$b,{path} && "
    f"git update-ref refs/heads/wip $(git {IDENTITY} commit-tree $(git write-tree) -p HEAD -m wip)"
    " && echo MADE"
)


async def session(boundary: Layout, command: str) -> str:
    ctx = sandboxed_context(boundary)
    out = await bash_runner(ctx)(command=command)
    await end_session(ctx)
    return out.content


async def planted_in_an_earlier_session(boundary: Layout, path: str) -> str:
    ws = boundary.workspace
    repository_with_feature(ws)
    boundary.hand_over()
    assert "MADE" in await session(boundary, PLUMBING.replace("{path}", path))
    return await session(boundary, f"git checkout wip -- {path}; git reset -q {path}; echo END")


async def test_an_earlier_sessions_ref_does_not_make_claude_settings_history(
    boundary: Layout,
) -> None:
    out = await planted_in_an_earlier_session(boundary, ".claude/settings.json")
    ws = boundary.workspace
    assert "END" in out, out
    assert not (ws / ".claude" / "settings.json").exists(), out


async def test_an_earlier_sessions_ref_does_not_make_envrc_history(boundary: Layout) -> None:
    out = await planted_in_an_earlier_session(boundary, ".envrc")
    ws = boundary.workspace
    assert "moved aside" in out, out
    assert not (ws / ".envrc").exists()
    assert HOOK in (ws / f".envrc{DISABLED}").read_text()


async def test_the_history_an_earlier_sessions_ref_was_built_on_stays_the_repositorys(
    boundary: Layout,
) -> None:
    """A session commits on a branch of `feature`; the user deletes `feature` outside; the
    next session checks `.envrc` out of that branch: the blob is `feature`'s, which the first
    session trusted, so it is kept."""
    ws = boundary.workspace
    repository_with_feature(ws)
    boundary.hand_over()
    made = "git checkout -qb wip feature && echo y > more && git add more && "
    made += f"git {IDENTITY} commit -qm m && git checkout -q main && echo MADE"
    assert "MADE" in await session(boundary, made)
    git(ws, "branch", "-D", "feature")
    boundary.hand_over()
    out = await session(boundary, "git checkout -q wip -- .envrc && echo KEPT")
    assert "KEPT" in out, out
    assert "moved aside" not in out, out
    assert (ws / ".envrc").read_text() == "layout python\n"


async def test_a_repository_an_earlier_session_made_is_no_history_at_all(
    boundary: Layout,
) -> None:
    """A command makes a repository `sub` whose only commit, made with plumbing, holds
    `src/.envrc`: the next session finds the repository there at its first command, yet none
    of its refs is history (no record of it predates the commands)."""
    ws = boundary.workspace
    (ws / "README").write_text("hello\n")
    boundary.hand_over()
    made = (
        f"git init -q -b main sub && cd sub && printf %s '{HOOK}' > $TMPDIR/evil && "
        "b=$(git hash-object -w $TMPDIR/evil) && export GIT_INDEX_FILE=$TMPDIR/idx && "
        "git update-index --add --cacheinfo 100644,$b,src/.envrc && "
        f"git update-ref refs/heads/main $(git {IDENTITY} commit-tree $(git write-tree) -m m)"
        " && echo MADE"
    )
    assert "MADE" in await session(boundary, made)
    out = await session(boundary, "cd sub && git checkout main -- src/.envrc; echo END")
    assert "END" in out, out
    assert "moved aside" in out, out
    assert not (ws / "sub" / "src" / ".envrc").exists()
    assert HOOK in (ws / "sub" / "src" / f".envrc{DISABLED}").read_text()
