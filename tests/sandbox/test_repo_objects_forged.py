"""A command cannot make git's object store say that its content was the repository's: a
forged object under the id of one the history had (a loose file written over, a new pack or
an alternate store claiming the id, a made-up parent of a shallow clone) is not history, so
the start-up file it planted is moved aside all the same. Measured before: each of these
kept a planted `.npmrc` as "checked out of the repository's history"."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.sandbox.git_sweep import DISABLED
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context
from .test_repo_content import BRANCH_FILES, git, repository_with_feature

pytestmark = needs_bwrap

FORGER = Path(__file__).with_name("object_forger.py")
PLANTED = "node-options=--require ./evil.js\n"
PLANT = f"printf '{PLANTED.strip()}\\n' > .npmrc && python3 forge.py"


def with_forger(root: Path) -> None:
    shutil.copy(FORGER, root / "forge.py")


def forge_outside(root: Path, how: str) -> None:
    """The forger run as an earlier session's command did (the files may be another user's)."""
    safe = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory"}
    env = {**os.environ, **safe, "GIT_CONFIG_VALUE_0": "*"}
    done = subprocess.run(
        [sys.executable, "forge.py", how], cwd=root, capture_output=True, text=True, env=env
    )
    assert done.stdout == f"forged {how}\n", done.stderr


async def moved_aside(boundary: Layout, command: str, root: Path, said: str) -> None:
    """Run `command` as the session's first: the `.npmrc` it planted is moved aside."""
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    out = await bash_runner(ctx)(command=command)
    assert said in out.content, out.content
    assert "moved aside" in out.content, out.content
    assert not (root / ".npmrc").exists()
    assert (root / f".npmrc{DISABLED}").read_text() == PLANTED
    await end_session(ctx)


@pytest.mark.parametrize("how", ["loose", "pack", "alternates", "commit"])
async def test_a_forged_object_does_not_make_a_planted_file_history(
    boundary: Layout, how: str
) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    with_forger(ws)
    shown = "git log --raw feature -- .npmrc | tail -1"  # git itself is fooled
    await moved_aside(boundary, f"{PLANT} {how} && {shown}", ws, f"forged {how}")


async def test_a_made_up_parent_of_a_shallow_clone_is_not_history(boundary: Layout) -> None:
    source = boundary.outside / "source"
    repository_with_feature(source)
    git(source, "checkout", "-q", "feature")
    (source / "README").write_text("second\n")
    git(source, "commit", "-qam", "second")
    ws = boundary.workspace
    git(ws, "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{source}", "repo")
    repo = ws / "repo"
    with_forger(repo)
    await moved_aside(boundary, f"cd repo && {PLANT} parent", repo, "forged parent")


async def test_an_object_forged_before_the_session_is_not_history(boundary: Layout) -> None:
    """An earlier session's command forged the object: the ids recorded at this session's
    first command are the only thing trusted, not what the store holds under them."""
    ws = boundary.workspace
    repository_with_feature(ws)
    with_forger(ws)
    (ws / ".npmrc").write_text(PLANTED)
    forge_outside(ws, "loose")
    (ws / ".npmrc").unlink()
    plant = PLANT.split(" && ")[0]
    await moved_aside(boundary, f"{plant} && echo planted", ws, "planted")


async def test_the_history_is_still_checked_out_after_a_repack_by_the_command(
    boundary: Layout,
) -> None:
    """Objects a command added (a pack of its own, a loose object) do not stop the check:
    a checkout of what the repository held is still kept."""
    ws = boundary.workspace
    repository_with_feature(ws)
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    out = await run(command="git repack -qd && git checkout -q feature && echo CHECKOUT-OK")
    assert "CHECKOUT-OK" in out.content, out.content
    assert "moved aside" not in out.content, out.content
    assert (ws / ".npmrc").read_text() == BRANCH_FILES[".npmrc"]
    await end_session(ctx)


def test_a_session_does_not_keep_a_file_planted_through_a_forged_tree(
    fake_model: FakeModelServer,
    tether: Callable[..., CliResult],
    workspace: Path,
) -> None:
    """The attack as a model would make it, through a real session's Bash tool."""
    repository_with_feature(workspace)
    with_forger(workspace)
    fake_model.script(
        reply(tool_use("Bash", command=f"{PLANT} loose")),
        reply(text("done")),
    )
    result = tether("-p", "go", "--permission-mode", "bypassPermissions")
    assert result.exit_code == 0, result.stderr
    answer = fake_model.requests[1].tool_results()[0]
    assert "forged loose" in answer, answer
    assert "moved aside" in answer, answer
    assert not (workspace / ".npmrc").exists()
    assert (workspace / f".npmrc{DISABLED}").read_text() == PLANTED


async def kept(boundary: Layout, command: str, root: Path, name: str, content: str) -> None:
    """Run `command` as the session's first: the `name` it checked out of the history stays."""
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    out = await bash_runner(ctx)(command=f"{command} && echo CHECKED-OUT")
    assert "CHECKED-OUT" in out.content, out.content
    assert "moved aside" not in out.content, out.content
    assert (root / name).read_text() == content
    await end_session(ctx)


async def test_an_older_commit_no_ref_holds_is_confirmed_through_the_history(
    boundary: Layout,
) -> None:
    """No tip holds the old `.npmrc`: the commits down to the one that does are read and
    hashed (packed by `git gc`, as most histories are)."""
    ws = boundary.workspace
    repository_with_feature(ws)
    git(ws, "checkout", "-q", "feature")
    (ws / ".npmrc").write_text("save-exact=false\n")
    git(ws, "commit", "-qam", "newer")
    git(ws, "gc", "-q")
    command = "git restore --source=feature~1 .npmrc"
    await kept(boundary, command, ws, ".npmrc", BRANCH_FILES[".npmrc"])


async def test_an_annotated_tag_is_peeled_through_hashed_objects(boundary: Layout) -> None:
    ws = boundary.workspace
    repository_with_feature(ws)
    git(ws, "tag", "-a", "-m", "release", "v1", "feature")
    git(ws, "branch", "-q", "-D", "feature")
    await kept(boundary, "git checkout -q v1", ws, ".envrc", BRANCH_FILES[".envrc"])


async def test_a_sha256_repository_is_confirmed_with_its_own_hash(boundary: Layout) -> None:
    ws = boundary.workspace
    git(ws, "init", "-q", "--object-format=sha256")
    git(ws, "commit", "-q", "--allow-empty", "-m", "first")
    git(ws, "checkout", "-qb", "feature")
    (ws / ".envrc").write_text("layout python\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "envrc")
    git(ws, "checkout", "-q", "-")
    await kept(boundary, "git checkout -q feature", ws, ".envrc", "layout python\n")
