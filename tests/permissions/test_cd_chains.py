"""Where a command after `cd DIR &&` runs (shell_chains, shell_places): only once the `cd`
succeeded, so its relative paths start in DIR alone (`cd src && make -C ..` is the workspace),
and `~+` is the directory the shell is in, `~-` one it was in. Wherever the `cd` may not have
run or may not have moved this shell (`;`, `||`, a subshell, a loop, a function or alias that
may redefine cd, `eval`, `cd -`), every place the line may be in still counts."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(make *)"],
        "deny": ["Read(.env)", "Read(~/.ssh/**)", "Bash(curl *)"],
    }
}
_MAKE = Decision("allow", "Bash(make *)", "allowed by Bash(make *)")
_READ_ONLY = Decision("allow", None, "read-only command")


@pytest.fixture
def makefile(tree: Tree) -> Tree:
    tree.write({"Makefile": "all:\n\ttrue\n", "src/Makefile": "all:\n\ttrue\n"})
    return tree


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cd src && make -C ..", _MAKE),
        ("cd src && make -C .. all", _MAKE),
        ("cd src && make -f ../Makefile", _MAKE),
        ("true && cd src && make -C .. && cat ../README.md", _MAKE),
        ("cd src && timeout 5 make -C ..", _MAKE),
        ("pushd src && make -C ..", _MAKE),
        ("cd src && cat ../README.md", _READ_ONLY),
        ("cd ~+", _READ_ONLY),
        ("cd ~+ && ls", _READ_ONLY),
        ("cd ~+/src && ls ..", _READ_ONLY),
        ("ls ~+/src", _READ_ONLY),
        ("cd src && ls ~-", _READ_ONLY),
    ],
)
def test_what_follows_a_cd_runs_where_it_led(
    command: str, expected: Decision, makefile: Tree, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


_OUTSIDE_CODE = Decision("ask", None, "runs code from .., outside the workspace: not seen")


@pytest.mark.parametrize(
    "command",
    [
        "cd src; make -C ..",
        "cd src || make -C ..",
        "(cd src) && make -C ..",
        "cd src && cd - && make -C ..",
        "cd src && cd .. && make -C ..",
        "cd src && eval 'cd /' && make -C ..",
        "alias cd=true; cd src && make -C ..",
        "for d in 1; do cd src && make -C ..; done",
        "shopt -s cdable_vars; cd src && make -C ..",
    ],
)
def test_where_the_cd_may_not_have_moved_the_shell_every_place_counts(
    command: str, makefile: Tree, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == _OUTSIDE_CODE


def test_a_cd_that_failed_on_the_left_of_an_or_keeps_its_start(
    makefile: Tree, make_ctx: ContextFactory
) -> None:
    # `cd x` fails, so make runs in src: `../..` is outside.
    command = "cd src && (cd x || make -C ../..)"
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("ask", None, "runs code from ../.., outside the workspace: not seen")


@pytest.mark.parametrize(
    "command",
    [
        "cd src && cat ../.env",
        "cd src && cat ~+/../.env",
        "cd src && cat ~-/.env",
        "cat ~+/.env",
        "cd $DIR && cat .env",
    ],
)
def test_deny_rules_hold_from_where_the_shell_is(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision(
        "deny", "Read(.env)", f"reading {tree.ws}/.env is denied by Read(.env)"
    )


def test_a_pwd_the_line_sets_makes_tilde_plus_unknown(tree: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": tree.fill("PWD={outside}; ls ~+")}, make_ctx(RULES))
    assert verdict == Decision(
        "ask", "Read(.env)", "~+ may reach files deny rule Read(.env) covers"
    )
