"""`grep -r` and `rg` skip the symlinks they meet below the directory they are given (`grep
-R`, `rg -L` follow them): a symlink to `.env` below `src` does not make `grep -rn TODO src`
ask. Shown with the real programs where they are installed."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(grep *)", "Bash(rg *)"], "deny": ["Read(**/.env)"]}}


@pytest.fixture
def linked(tree: Tree) -> Tree:
    (tree.ws / "src" / "lib").mkdir()
    os.symlink(tree.ws, tree.ws / "src" / "lib" / "top")  # a directory link to the workspace
    return tree  # src/link_env -> ../.env is the conftest's


@pytest.mark.parametrize(
    "command", ["grep -rn TODO src", "grep -r -l KEY src", "rg TODO src", "rg -n KEY src/lib"]
)
def test_links_below_the_top_are_not_read(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "grep -Rn KEY src",
        "grep --dereference-recursive KEY src",
        "rg -L KEY src",
        "rg --follow KEY src",
        "grep -rn KEY src/link_env",
        "grep -r KEY src/lib/top",
        "grep -r KEY .",
    ],
)
def test_what_follows_or_names_a_link_is_judged_on_its_target(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "allow", (command, verdict.reason)


@pytest.mark.skipif(shutil.which("grep") is None, reason="grep is not installed")
def test_grep_r_does_not_follow_links_below_its_top(linked: Tree) -> None:
    def found(*args: str) -> str:
        done = subprocess.run(
            ["grep", *args, "KEY", "src"], cwd=linked.ws, capture_output=True, timeout=60
        )
        return done.stdout.decode()

    assert "KEY=1" not in found("-r")
    assert "KEY=1" in found("-R")
