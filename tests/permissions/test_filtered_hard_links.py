"""A recursive read that takes only some names (`pytest --doctest-glob=GLOB`, `grep -r
--include=GLOB`) still reaches a hard link whose own name passes the filter: the link is the
file its other names are, which a rule may cover whatever the filter says of those names."""

from __future__ import annotations

import os

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(pytest:*)", "Bash(grep:*)", "Bash(rg:*)"],
        "deny": ["Read(**/.env)", "Read(secrets/**)"],
    }
}


@pytest.fixture
def linked(tree: Tree) -> Tree:
    notes = tree.ws / "notes"
    notes.mkdir()
    (notes / "plain.txt").write_text("x\n")
    os.link(tree.ws / ".env", notes / "envcopy.txt")
    os.link(tree.ws / "secrets" / "api.key", notes / "api.md")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "pytest --doctest-glob=envcopy.txt notes",
        "pytest --doctest-glob='*.txt' notes",
        "pytest --doctest-glob='*.md' notes",
        "grep -r --include='env*' KEY notes",
        "grep -rn --include=*.md key notes",
    ],
)
def test_a_link_that_passes_the_filter_is_asked(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior != "allow", decision


@pytest.mark.parametrize(
    "command", ["pytest --doctest-glob='*.rst' notes", "grep -r --include='*.py' x notes"]
)
def test_a_filter_no_link_passes_stays_allowed(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
