"""A repository named on git's command line by its place on this machine (`git fetch
/other/repo`, `../other`, `file://`, a bundle, `git ls-remote`, `git fetch-pack`) is a read
of that place, asked outside the workspace as a configured remote pointing there already
is (it was allowed, and `git show FETCH_HEAD:FILE` then printed any file of it). Real git,
real repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(git *)"], "deny": ["Read(./.env)"]}}
_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}


def _repo(place: Path) -> None:
    place.mkdir(parents=True, exist_ok=True)
    for args in (("init", "-q", "-b", "main"), ("add", "-A")):
        subprocess.run(["git", *args], cwd=place, env=_ENV, check=True, capture_output=True)
    commit = ("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x", "--allow-empty")
    subprocess.run(["git", *commit], cwd=place, env=_ENV, check=True, capture_output=True)


@pytest.fixture
def repos(tree: Tree) -> Tree:
    (tree.outside / "other").mkdir(parents=True)
    (tree.outside / "other" / "creds.txt").write_text("TOKEN=1\n")
    _repo(tree.outside / "other")
    _repo(tree.ws)
    _repo(tree.ws / "vendor" / "lib")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "git fetch {outside}/other",
        "git fetch ../outside/other",
        "git fetch file://{outside}/other",
        "git fetch {outside}/other main:refs/heads/x",
        "git fetch -q --depth 1 {outside}/other",
        "git ls-remote {outside}/other",
        "git fetch {outside}/other/x.bundle",
        "git fetch-pack {outside}/other HEAD",
        "git ls-remote --heads file://{outside}/other",
    ],
)
def test_a_repository_outside_named_by_its_place_is_asked(
    command: str, repos: Tree, make_ctx: ContextFactory
) -> None:
    command = repos.fill(command)
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "outside the workspace" in verdict.reason, verdict.reason


@pytest.mark.parametrize(
    "command", ["git fetch ./vendor/lib", "git fetch vendor/lib main", "git fetch", "git status"]
)
def test_repositories_in_the_workspace_stay_allowed(
    command: str, repos: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
