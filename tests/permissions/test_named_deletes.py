"""Over-asking fixed at its cause: `find START TESTS -delete` deletes the paths its name tests
pick (judged from the disk, as find's `{}` is), not every path below START; and tar without
`-h` stores a symlink it meets below its top as a link, so the file it names is not read."""

from __future__ import annotations

import os

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(find:*)", "Bash(tar:*)"],
        "deny": ["Read(**/.env)", "Edit(.git/**)", "Edit(secrets/**)"],
    }
}


@pytest.fixture
def built(tree: Tree) -> Tree:
    (tree.ws / "src" / "__pycache__").mkdir()
    (tree.ws / "src" / "__pycache__" / "app.cpython-311.pyc").write_text("x")
    (tree.ws / ".git" / "hooks").mkdir()
    (tree.ws / ".git" / "hooks" / "pre-push.sample").write_text("#!/bin/sh\n")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "find . -name '*.pyc' -delete",
        "find . -type f -iname '*.PYC' -delete",
        "find src -name __pycache__ -prune -o -name '*.tmp' -print",
        "tar -czf build.tgz src",
        "tar -cf - src | tar -tvf -",
    ],
)
def test_ordinary_cleanups_and_archives_are_allowed(
    command: str, built: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize(
    "command",
    [
        "find . -name '*.sample' -delete",
        "find . -path './.git/*' -delete",
        "find . -name '*.pem' -delete",
        "find src/.. -name 'key.pem' -delete",
    ],
)
def test_a_delete_reaching_a_denied_path_is_denied(
    command: str, built: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    "command",
    [
        "find . -delete",
        "find . -delete -name '*.pyc'",
        "find . -not -name '*.pyc' -delete",
        "find . -name '*.pyc' -o -name '*.log' -delete",
        "find -L . -name '*.pyc' -delete",
        "tar -czhf build.tgz src",
        "tar --dereference -czf build.tgz src",
    ],
)
def test_what_may_reach_more_is_still_asked(
    command: str, built: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior in ("ask", "deny"), decision
    assert decision.behavior != "allow"


def test_a_linked_secret_named_at_the_top_is_still_read(
    built: Tree, make_ctx: ContextFactory
) -> None:
    os.symlink("../.env", built.ws / "src" / "env_again")
    decision = decide("Bash", {"command": "tar -czf x.tgz src/env_again"}, make_ctx(RULES))
    assert decision.behavior == "deny", decision
