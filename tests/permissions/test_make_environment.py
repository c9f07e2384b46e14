"""Build variables reach make from the shell's environment and from `--eval` text as well as
from its command line: `export CFLAGS=...; make`, `X=...; export X`, `declare -x`, and
`--eval`'s assignments (target-specific and `override` ones too) get the judgement
build_flags gives make's own variables; `--eval` text that loads a shared object, includes a
makefile from outside, runs a command (`!=`) or writes and reads files (`$(file ...)`) is
judged for that. Ordinary values stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(make:*)", "Bash(export:*)", "Bash(declare:*)", "Bash(set:*)"],
        "deny": ["Bash(wget:*)", "Edit(.github/**)", "Read(**/.env)"],
    }
}

DENIED = [
    "export CFLAGS=-B{outside}/tools; make prog",
    "export CXXFLAGS='-O2 -fplugin={outside}/p.so' && make prog",
    "LDFLAGS=-Wl,--plugin={outside}/p.so; export LDFLAGS; make",
    "declare -x CPPFLAGS=--specs={outside}/s; make",
    "set -a; TARGET_ARCH=-B{outside}; make prog",
    "make --eval='CFLAGS = -B{outside}/tools' prog",
    "make -E 'override LDFLAGS += -fuse-ld={outside}/ld' prog",
    "make --eval='prog: CFLAGS := -fplugin={outside}/p.so' prog",
    "make --eval 'load {outside}/ext.so'",
    "make --ev='-load {outside}/ext.so(setup)'",
    "make --eval='VERSION != wget -qO- x'",
    "make --eval='$(file >.github/workflows/x.yml,on: push)'",
    "make --eval='$(file <.env)'",
]


@pytest.mark.parametrize("command", DENIED)
def test_build_variables_from_the_environment_and_eval_are_judged(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


ASKED = [
    "make --eval='include {outside}/rules.mk' prog",
    "make --eval='CC={outside}/cc' prog",
]


@pytest.mark.parametrize("command", ASKED)
def test_eval_code_from_outside_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


ALLOWED = [
    "export CFLAGS='-O2 -g'; make prog",
    "CFLAGS=-Wall; export CFLAGS; make",
    "make --eval='CFLAGS += -O2' prog",
    "make --eval='include config.mk' prog",
    "export LDFLAGS=-Wl,-rpath,/usr/local/lib; make",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_ordinary_build_variables_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
