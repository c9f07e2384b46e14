"""make's command line changes what the recipes of an allowed make run: a variable GNU make
puts in every recipe's environment that changes what programs run or load (the table a
shell assignment before a command is judged by: `LD_PRELOAD=x make` and `make LD_PRELOAD=x`
alike), a program variable that starts a shell, an interpreter or a wrapper, the same set
by `--eval`, and `-e` (the environment, not seen, wins over the makefile). Under
`Bash(make *)` each asks, whether or not the goal has a recipe; make's own program
variables naming a plain program and ordinary variables stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(make *)"]}}
MAKEFILE = {"Makefile": "build:\n\techo built\n\ninstall:\n\tcp app /usr/local/bin\n"}

ENVIRONMENT = "in every recipe's environment"
CHANGED = [
    ("make install LD_PRELOAD=x", f"make's LD_PRELOAD=, {ENVIRONMENT}"),
    ("make build LD_LIBRARY_PATH=/tmp/x", f"make's LD_LIBRARY_PATH=, {ENVIRONMENT}"),
    ("make nothing-here LD_PRELOAD=x", f"make's LD_PRELOAD=, {ENVIRONMENT}"),
    ("make build PYTHONPATH=/tmp/x", f"make's PYTHONPATH=, {ENVIRONMENT}"),
    ("make build BASH_ENV=/tmp/rc", f"make's BASH_ENV=, {ENVIRONMENT}"),
    ("make build PATH=/tmp/bin:/usr/bin", f"make's PATH=, {ENVIRONMENT}"),
    ("make build NODE_OPTIONS=--require=/tmp/x.js", f"make's NODE_OPTIONS=, {ENVIRONMENT}"),
    ("make build GIT_SSH_COMMAND=x", f"make's GIT_SSH_COMMAND=, {ENVIRONMENT}"),
    ("make build HOME=/tmp/h", f"make's HOME=, {ENVIRONMENT}"),
    (
        "make build npm_config_script_shell=/tmp/x",
        f"make's npm_config_script_shell=, {ENVIRONMENT}",
    ),
    ("make build LD_PRELOAD:=x", f"make's LD_PRELOAD:=, {ENVIRONMENT}"),
    ("make build LD_PRELOAD::=x", f"make's LD_PRELOAD::=, {ENVIRONMENT}"),
    ("make build LD_PRELOAD+=x", f"make's LD_PRELOAD+=, {ENVIRONMENT}"),
    ("make build 'LD_PRELOAD?=x'", f"make's LD_PRELOAD?=, {ENVIRONMENT}"),
    ("make build 'LD_PRELOAD = x'", f"make's LD_PRELOAD=, {ENVIRONMENT}"),
    ("make -n build LD_PRELOAD=x", f"make's LD_PRELOAD=, {ENVIRONMENT}"),
    ("make -- build LD_PRELOAD=x", f"make's LD_PRELOAD=, {ENVIRONMENT}"),
    ("make build CC='sh -c id'", f"make's CC=, {ENVIRONMENT}"),
    ("make build CC='bash -c id'", f"make's CC=, {ENVIRONMENT}"),
    ("make build CXX='python3 -c 1'", f"make's CXX=, {ENVIRONMENT}"),
    ("make build CC='env LD_PRELOAD=x cc'", f"make's CC=, {ENVIRONMENT}"),
    ("make build 'CC=$(X)'", f"make's CC=, {ENVIRONMENT}"),
    ("make build SHELL=/tmp/sh", "make's SHELL="),
    ("make build MAKEFLAGS=-e", "make's MAKEFLAGS="),
    ("make --eval='export LD_PRELOAD=x' build", "make's --eval setting LD_PRELOAD"),
    ("make -E 'override PATH := /tmp/bin' build", "make's --eval setting PATH"),
    ("make -e build", "make's -e (the environment's variables override the makefile's)"),
    ("make -ej4 build", "make's -e (the environment's variables override the makefile's)"),
    ("make -sek build", "make's -e (the environment's variables override the makefile's)"),
    (
        "make --environment-overrides build",
        "make's -e (the environment's variables override the makefile's)",
    ),
    ("make --env build", "make's -e (the environment's variables override the makefile's)"),
]


@pytest.mark.parametrize(("command", "source"), CHANGED)
def test_what_changes_the_recipes_asks_under_an_allow_rule(
    command: str, source: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(MAKEFILE)
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision == Decision("ask", None, f"make runs code from {source}, not seen")


def test_gmake_is_make(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(MAKEFILE)
    decision = decide("Bash", {"command": "gmake build DYLD_INSERT_LIBRARIES=x"}, make_ctx(RULES))
    why = f"make's DYLD_INSERT_LIBRARIES=, {ENVIRONMENT}"
    assert decision == Decision("ask", None, f"gmake runs code from {why}, not seen")


def test_a_deny_rule_makes_it_a_denial(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(MAKEFILE)
    rules = {"permissions": {"allow": ["Bash(make *)"], "deny": ["Bash(curl *)"]}}
    decision = decide("Bash", {"command": "make install LD_PRELOAD=x"}, make_ctx(rules))
    why = f"make runs code from make's LD_PRELOAD=, {ENVIRONMENT}, not seen: it"
    assert decision == Decision(
        "deny",
        "Bash(curl *)",
        f"{why} may run what deny rule Bash(curl *) forbids; write the command plainly",
    )


ORDINARY = [
    "make build",
    "make build V=1 DEBUG=1",
    "make build PREFIX=/usr/local",
    "make build CC=clang",
    "make build CC=gcc-12 CXX='clang++ -std=c++20'",
    "make build CFLAGS='-O2 -g'",
    "make -j4 -k build",
    "make -s build",
    "make --eval='VERSION := 1.2' build",
]


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_variables_and_flags_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(MAKEFILE)
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision == Decision("allow", "Bash(make *)", "allowed by Bash(make *)")
