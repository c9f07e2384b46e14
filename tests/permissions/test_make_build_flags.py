"""Compiler and linker options given to make as variables, on its command line or in its
environment, are judged as the same options on a compiler's command line: those that run
programs or load code from a directory, a plugin, a specs or response file are code not seen;
an output into a protected path is a write of it; a value built as the command runs may hold
any of them. Ordinary flags stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(make:*)", "Bash(env:*)", "Bash(printf:*)"],
        "deny": ["Bash(wget:*)", "Edit(.git/**)"],
    }
}

LOADING = [
    "make prog CXXFLAGS=-B{outside}/tools",
    "make prog 'CPPFLAGS=-I include -B {outside}/tools'",
    "make prog LDFLAGS=-Wl,-plugin={outside}/p.so",
    "make prog LDFLAGS='-Xlinker --plugin -Xlinker {outside}/p.so'",
    "make prog CFLAGS=-specs={outside}/x.specs",
    "make prog CFLAGS=-fplugin={outside}/p.so",
    "make prog LDLIBS=-fuse-ld={outside}/ld",
    "make prog ARFLAGS='--plugin {outside}/p.so'",
    "make prog CXX='g++ -B{outside}/tools'",
    "make prog CFLAGS=@{outside}/opts",
    "CFLAGS=-B{outside}/tools make prog",
    "env LDFLAGS=--ld-path={outside}/ld make prog",
    'make prog CFLAGS="$(printf -- -B{outside})"',
    'make prog LDFLAGS="$EXTRA"',
]


@pytest.mark.parametrize("command", LOADING)
def test_options_that_load_code_are_not_seen(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "deny", decision
    # Seen as make's option, or in the built-in rule that makes `prog` (makefile_reader).
    assert "make's" in decision.reason or "make runs prog" in decision.reason


WRITING = [
    "make prog OUTPUT_OPTION='-o .git/hooks/pre-commit'",
    "make prog CFLAGS='-o .git/hooks/post-checkout'",
    "make prog LDFLAGS=-Wl,-Map=.git/config",
]


@pytest.mark.parametrize("command", WRITING)
def test_outputs_are_writes(command: str, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior != "allow", decision
    assert "Edit(.git/**)" in decision.reason


PLAIN = [
    "make prog CFLAGS='-O2 -g -Wall' LDFLAGS=-lm",
    "make prog CPPFLAGS='-I include -DNDEBUG' LDFLAGS='-L lib -Wl,-rpath,lib'",
    "CFLAGS=-O0 make test",
    "make prog CC=clang CXX='clang++ -std=c++20'",
    "make prog OUTPUT_OPTION='-o build/prog.o'",
]


@pytest.mark.parametrize("command", PLAIN)
def test_ordinary_flags_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"
