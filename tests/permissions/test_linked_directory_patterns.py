"""A pattern below a symlinked directory (`gl/$X`, what `tar -x -C gl` writes, with `gl ->
.git`) reaches where the link leads before anything else: deny and ask rules are matched
there too, also where the rest of the pattern may climb out, in bypassPermissions too."""

from __future__ import annotations

import os

import pytest

from tether.permissions import Mode, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(tar:*)", "Bash(echo:*)", "Bash(cpio:*)", "Bash(cat:*)"],
        "deny": ["Edit(.git/**)", "Edit(config/**)", "Read(secrets/**)"],
    }
}


@pytest.fixture
def linked(tree: Tree) -> Tree:
    os.symlink(".git", tree.ws / "gl")
    os.symlink("config", tree.ws / "cfg")
    os.symlink("secrets", tree.ws / "sec")
    (tree.ws / "deep").mkdir()
    os.symlink("../.git", tree.ws / "deep" / "up")
    return tree


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "bypassPermissions"])
@pytest.mark.parametrize(
    "command",
    [
        "tar -C gl -xf /tmp/t.tar",
        "tar -xf /tmp/t.tar -C gl/",
        "tar -xzf /tmp/t.tgz --directory=cfg",
        "tar -x -f /tmp/t.tar -C deep/up",
        "echo x > gl/$NAME",
        "echo x > cfg/$A/$B",
        "cat sec/$F",
        "cd deep && tar -xf /tmp/t.tar -C up",
    ],
)
def test_rules_hold_below_the_link(
    mode: Mode, command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
    assert decision.behavior != "allow", decision


def test_a_plain_directory_stays_allowed(linked: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(RULES, mode="bypassPermissions")
    assert decide("Bash", {"command": "tar -xf /tmp/t.tar -C src"}, ctx).behavior == "allow"
