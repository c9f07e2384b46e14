"""A repository git reads by a word no remote has is the path that word names: `git fetch out`,
where `out` is a workspace symlink to a repository outside, reads it as `git fetch
../outside` does; a bundle `git bundle unbundle|verify|list-heads FILE` reads is a repository
in one file, read as `git fetch FILE.bundle` reads it. Real git, real repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.permissions import Decision, PermissionContext, load_rules

from .conftest import Tree, bash

RULES = {"permissions": {"allow": ["Bash(git *)"], "deny": ["Read(./.env)"]}}


def _git(*args: str | Path) -> None:
    subprocess.run(["git", "-c", "init.defaultBranch=main", *map(str, args)], check=True)


@pytest.fixture
def linked(tree: Tree) -> Tree:
    _git("init", "-q", tree.ws)
    repo = tree.outside / "repo"
    _git("init", "-q", repo)
    (repo / "f.txt").write_text("x\n")
    _git("-C", repo, "add", "f.txt")
    _git("-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    _git("-C", repo, "bundle", "create", "-q", tree.outside / "b.bundle", "--all")
    _git("-C", tree.ws, "remote", "add", "origin", repo)
    (tree.ws / "out").symlink_to(repo)
    (tree.ws / "bundles").symlink_to(tree.outside)
    return tree


def _ctx(tree: Tree) -> PermissionContext:
    rules = load_rules([(tree.ws / ".claude" / "settings.json", RULES)], seed_yaml=None)
    return PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


def _outside(tree: Tree, word: str, real: Path) -> Decision:
    shown = tree.ws / word
    reason = f"reads {shown} (that is {real}), outside the workspace"
    return Decision("ask", None, reason)


@pytest.mark.parametrize(
    ("command", "word", "real"),
    [
        ("git fetch out", "out", "repo"),
        ("git fetch out main", "out", "repo"),
        ("git ls-remote out", "out", "repo"),
        ("git fetch bundles/b.bundle", "bundles/b.bundle", "b.bundle"),
        ("git bundle unbundle bundles/b.bundle", "bundles/b.bundle", "b.bundle"),
        ("git bundle verify -q bundles/b.bundle", "bundles/b.bundle", "b.bundle"),
        ("git bundle list-heads bundles/b.bundle", "bundles/b.bundle", "b.bundle"),
    ],
)
def test_a_repository_through_a_link_is_read_where_it_leads(
    command: str, word: str, real: str, linked: Tree
) -> None:
    expected = _outside(linked, word, linked.outside / real)
    assert bash(command, _ctx(linked)) == expected


@pytest.mark.parametrize(
    "command",
    [
        "git bundle unbundle {outside}/b.bundle",
        "git bundle verify {outside}/b.bundle",
    ],
)
def test_a_bundle_outside_is_read_as_fetch_reads_it(command: str, linked: Tree) -> None:
    bundle = linked.outside / "b.bundle"
    expected = Decision("ask", None, f"reads {bundle}, outside the workspace")
    assert bash(linked.fill(command), _ctx(linked)) == expected


def test_a_denied_file_named_as_a_repository_is_denied(linked: Tree) -> None:
    reason = f"reading {linked.ws / '.env'} is denied by Read(./.env)"
    assert bash("git fetch .env", _ctx(linked)) == Decision("deny", "Read(./.env)", reason)


@pytest.mark.parametrize("command", ["git fetch origin", "git fetch", "git ls-remote origin"])
def test_remotes_by_name_stay_as_they_were(command: str, linked: Tree) -> None:
    """origin is outside here too: read as its configured URL, as before."""
    repo = linked.outside / "repo"
    expected = Decision("ask", None, f"reads {repo}, outside the workspace")
    assert bash(command, _ctx(linked)) == expected
