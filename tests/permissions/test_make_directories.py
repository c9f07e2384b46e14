"""make's `-C DIR` options compose: each is taken from the directory the one before led to
(`make -C .. -C ..` is two levels up, `make -C src -C ..` is where it started), so the
directory make runs in, and the makefiles and include directories it reads from there, are
the fold of every `-C` in order, from where the command runs."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(make *)", "Bash(cd *)", "Bash(env *)", "Bash(timeout *)"],
        "deny": ["Read(.env)", "Bash(curl *)"],
    }
}


@pytest.fixture
def makefiles(tree: Tree) -> Tree:
    tree.write({"Makefile": "all:\n\ttrue\n", "src/Makefile": "all:\n\ttrue\n"})
    return tree


@pytest.mark.parametrize(
    ("command", "outside"),
    [
        ("cd src && make -C .. -C ..", "../.."),
        ("cd src && make -C .. -C .. all", "../.."),
        ("cd src && make -C.. -C..", "../.."),
        ("cd src && make --directory .. --directory=..", "../.."),
        ("cd src && make -C .. --dir=.. -n", "../.."),
        ("cd src && make -C .. -C .. -f Makefile", "../.."),
        ("cd src && env make -C .. -C ..", "../.."),
        ("cd src && timeout 9 make -C .. -C ..", "../.."),
        ("cd . && make -C src -C .. -C ..", "src/../.."),
        ("make -C . -C ..", "./.."),
        ("make -C src -C ../..", "src/../.."),
    ],
)
def test_directories_that_add_up_to_outside_are_asked(
    command: str, outside: str, makefiles: Tree, make_ctx: ContextFactory
) -> None:
    reason = f"runs code from {outside}, outside the workspace: not seen"
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == Decision("ask", None, reason)


@pytest.mark.parametrize(
    "command",
    [
        "make -C src -C ..",
        "make -C src -C .. all",
        "make -Csrc -C..",
        "make --directory=src --directory ..",
        "make -C src -C .. -f Makefile",
        "make -C src -f ../Makefile",
        "cd src && make -C .. -C src",
    ],
)
def test_directories_that_add_up_to_the_workspace_are_allowed(
    command: str, makefiles: Tree, make_ctx: ContextFactory
) -> None:
    rules = "Bash(cd *), Bash(make *)" if command.startswith("cd") else "Bash(make *)"
    expected = Decision("allow", rules, f"allowed by {rules}")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


@pytest.mark.parametrize(
    ("command", "outside"),
    [
        ("make -C src -f ../../x.mk", "src/../../x.mk"),
        ("make -C src -I ../../include", "src/../../include"),
    ],
)
def test_makefiles_and_includes_are_read_from_where_the_directories_led(
    command: str, outside: str, makefiles: Tree, make_ctx: ContextFactory
) -> None:
    reason = f"runs code from {outside}, outside the workspace: not seen"
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == Decision("ask", None, reason)


@pytest.mark.parametrize(
    ("command", "path", "rule"),
    [
        ("make -C src -f ../.env", "src/../.env", "Read(.env)"),
        ("make --directory=src -f ../.env", "src/../.env", "Read(.env)"),
        ("make -C src -C .. -f .env", "src/../.env", "Read(.env)"),
    ],
)
def test_a_denied_makefile_read_from_where_the_directories_led_is_denied_as_from_here(
    command: str, path: str, rule: str, makefiles: Tree, make_ctx: ContextFactory
) -> None:
    """As `make -f .env` is: make reads the file from the directory `-C` moved it to."""
    denied = decide("Bash", {"command": "make -f .env"}, make_ctx(RULES))
    assert denied.behavior == "deny"
    target = denied.reason.split("reading ", 1)[1].split(" is denied")[0]
    expected = Decision(
        "deny", rule, f"runs code from {path}: reading {target} is denied by {rule}"
    )
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected
