"""bash's `cd` is logical unless `-P` (or `set -P`): `cd homelink/..` folds `..` on the path as
written and lands where the link is (the workspace), not in the parent of where the link
leads; a later `cd ..` folds from there too. A physical `cd` climbs from where the link leads.
A logical one that climbs to a directory which may be gone when it runs (bash then falls back
to the physical one) keeps both places. `cd homelink/.. && touch x` was asked before, as a
write outside the workspace."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(cd *)", "Bash(touch *)", "Bash(make *)"],
        "deny": ["Read(.env)", "Read(~/.ssh/**)", "Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "cd homelink/.. && touch x",
        "cd ./homelink/.. && touch x",
        "cd -L homelink/.. && touch x",
        "cd src/../homelink/.. && touch x",
        "cd homelink && cd .. && touch x",
        "cd homelink/. && cd .. && touch x",
        "cd homelink/../src && touch x",
        "cd -L homelink/../src && touch x",
        "cd homelink && cd ../src && touch x",
        "cd homelink/../src && touch ../x",
        "cd homelink/../src; touch x",
        "(cd homelink/../src && touch x)",
    ],
)
def test_a_logical_cd_lands_where_the_link_is(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision(
        "allow", "Bash(cd *), Bash(touch *)", "allowed by Bash(cd *), Bash(touch *)"
    )
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


@pytest.mark.parametrize(
    "command",
    [
        "cd -P homelink/.. && touch x",
        "cd -LP homelink/.. && touch x",
        "set -P; cd homelink/.. && touch x",
        "set -o physical; cd homelink/.. && touch x",
        "cd -P homelink && cd .. && touch x",
        "cd homelink/../.. && touch x",
    ],
)
def test_a_physical_cd_or_one_that_climbs_out_is_outside(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("ask", None, f"writes {tree.root}/x, outside the workspace")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


@pytest.mark.parametrize(
    "command",
    [
        "cd -P homelink/../src && touch x",
        "set -P; cd homelink/../src && touch x",
        "rm -rf src; cd homelink/../src && touch x",
        "rm -rf src & cd homelink/../src && touch x",
        "cd homelink/../src && touch x & rm -rf src",
        "X=$(rm -rf src) cd homelink/../src && touch x",
    ],
)
def test_a_cd_through_a_link_to_a_directory_that_may_be_gone_may_be_physical(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """bash falls back to the physical path when the folded one is no directory as it runs:
    sure only when nothing before the `cd` (or beside it) may have taken it away."""
    (tree.root / "src").mkdir()
    expected = Decision("ask", None, f"writes {tree.root}/src/x, outside the workspace")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


def test_a_logical_cd_to_a_directory_not_there_is_the_physical_one(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": "cd homelink/../nosuch && touch x"}, make_ctx(RULES))
    assert verdict == Decision("ask", None, f"writes {tree.root}/nosuch/x, outside the workspace")


def test_a_denied_file_is_denied_from_where_the_logical_cd_lands(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": "cd homelink/.. && cat .env"}, make_ctx(RULES))
    assert verdict == Decision(
        "deny", "Read(.env)", f"reading {tree.ws}/.env is denied by Read(.env)"
    )
