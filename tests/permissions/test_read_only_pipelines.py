"""Everyday read-only pipelines are allowed when what they read cannot be a denied file, in a
tree holding symlinks (one to `.env`, one to the home directory): `find ... | xargs CMD`
anywhere in a longer pipeline, `-print0 | xargs -0`, find tests that only narrow (`-not
-path`, `-newer`, `-size`), and `git grep` with glob pathspecs (git lists the tracked files
they match). The same shapes that can reach `.env` stay denied or asked."""

from __future__ import annotations

import os
import subprocess

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            *("Bash(find:*)", "Bash(xargs:*)", "Bash(grep:*)", "Bash(wc:*)", "Bash(git:*)"),
            *("Bash(cat:*)", "Bash(sort:*)", "Bash(head:*)"),
        ],
        "deny": ["Read(**/.env)"],
    }
}


@pytest.fixture
def repository(tree: Tree) -> Tree:
    """The tree as a git repository whose tracked files hold no `.env`."""
    (tree.ws / ".gitignore").write_text(".env\n")
    (tree.ws / "src" / "util.py").write_text("# TODO\n")
    git = ["git", "-C", str(tree.ws), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "src/app.py", "src/util.py", "README.md"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    return tree


ALLOWED = [
    "find . -name '*.py' | xargs grep -n TODO",
    "find src -name '*.py' | xargs wc -l | sort -n",
    "find . -name '*.py' | xargs grep -l TODO | head -3",
    "find . -name '*.py' -print0 | xargs -0 wc -l",
    "find . -name '*.md' -not -path './node_modules/*' | xargs wc -l",
    "find . -name '*.py' ! -path '*/build/*' -newer README.md -exec grep -n TODO {} +",
    "find src -name '*.py' -size -100k -exec wc -l {} +",
    "git grep TODO -- '*.py'",
    "git grep -n TODO -- 'src/*.py' ':!tests'",
    "git grep -e TODO -- '*.md' '*.py'",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_read_only_pipelines_are_allowed(
    command: str, repository: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision


REFUSED = [
    "find . -name '*env*' | xargs cat",
    "find . -name 'link_*' -print0 | xargs -0 cat | wc -l",
    "find . -type f | xargs grep KEY | sort",
    "find . ! -name '*.py' -exec cat {} +",
    "find . -path '*env*' -exec grep KEY {} +",
    "find . -name '*.py' -o -name '.env' | xargs cat",
    "find -L . -name '*.py' -exec cat {} +",
    "find . -name '*.py' -print0 | xargs cat",
    "git grep --no-exclude-standard --untracked KEY -- '*'",
]


@pytest.mark.parametrize("command", REFUSED)
def test_pipelines_that_may_reach_the_denied_file_are_not_allowed(
    command: str, repository: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior != "allow", decision


def test_git_grep_meets_another_name_of_a_denied_file(
    repository: Tree, make_ctx: ContextFactory
) -> None:
    """git lists the files it searches; one that is a hard link of `.env` is `.env`."""
    (repository.ws / "notes").mkdir()
    os.link(repository.ws / ".env", repository.ws / "notes" / "copy")
    ctx = make_ctx(RULES)
    for command in (
        "git grep --untracked KEY",
        "git grep --untracked KEY -- notes",
        "git grep --untracked KEY -- '*op*'",
    ):
        assert decide("Bash", {"command": command}, ctx).behavior == "ask", command
    assert decide("Bash", {"command": "git grep KEY -- '*.py'"}, ctx).behavior == "allow"
