"""`git grep` of the working tree reads the files git tracks below its pathspecs, also when
they follow `--`: judged by what git lists (a denied file git does not track is not read),
as without `--`. A revision before `--` searches what git's objects hold, as before."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(git:*)"], "deny": ["Read(**/.env)"]}}


def _git(ws: Path, *args: str) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(ws)}
    env |= {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b"}
    env |= {"GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run(["git", *args], cwd=ws, env=env, capture_output=True, timeout=20, check=True)


@pytest.fixture
def repository(tree: Tree) -> Tree:
    (tree.ws / ".gitignore").write_text(".env\nsrc/.env\n")
    (tree.ws / "src" / ".env").write_text("KEY=2\n")
    _git(tree.ws, "init", "-q")
    _git(tree.ws, "add", "src/app.py", "README.md", ".gitignore")
    _git(tree.ws, "commit", "-qm", "init")
    return tree


@pytest.mark.parametrize(
    "command",
    ["git grep -n TODO -- src", "git grep -e TODO -- src README.md", "git grep -c TODO -- ."],
)
def test_tracked_files_below_the_paths_are_what_it_reads(
    command: str, repository: Tree, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"


def test_a_tracked_denied_file_below_the_paths_is_asked(
    repository: Tree, make_ctx: ContextFactory
) -> None:
    _git(repository.ws, "add", "-f", "src/.env")
    decision = decide("Bash", {"command": "git grep -n KEY -- src"}, make_ctx(RULES))
    assert decision.behavior != "allow", decision
    assert "src/.env" in decision.reason


def test_a_revision_before_the_paths_searches_history(
    repository: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": "git grep KEY HEAD -- src"}, make_ctx(RULES))
    assert decision.behavior != "allow", decision
