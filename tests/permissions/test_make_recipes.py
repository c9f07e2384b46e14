"""Recipes given in make's `--eval` text run through the shell: each command is judged as a
command of its own (deny and ask rules, and an allow rule of its own needed, as for find
-exec), with make's recipe prefixes `@`, `-`, `+` taken off; a recipe whose text make
expands as it runs (`$(X)`, `$@`), `$(shell ...)` and `.RECIPEPREFIX` are code not seen."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(make:*)", "Bash(gmake:*)", "Bash(echo:*)", "Bash(cc:*)"],
        "deny": ["Bash(wget:*)", "Bash(rm:*)", "Bash(git push:*)", "Read(**/.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "make -E 'go:;@wget -q x' go",
        "make --eval='go: ; -wget x'",
        "make -E 'go:;+ @ wget x'",
        "gmake -E $'go:\\n\\t@-wget x' go",
        "make --eval $'a:\\n\\t@echo ok\\n\\t-@rm -rf src' a",
        "make -E 'clean:;@git push -f origin main' clean",
        "make -E 'a: b; @wget x' -E 'b:;@true' a",
        "make -E 'go:;@w$$(echo g)et x' go",  # $$ is the shell's $: a substitution
        "make -E 'go:;@w$(E)get x' E=",
        "make -E 'go:;@$@ x' wget",
        "make -E 'X := $(shell wget x)'",
        "make -E '.RECIPEPREFIX = >' -E $'go:\\n>wget x' go",
        "make -E 'X != wget x'",
    ],
)
def test_recipes_meet_the_deny_rules(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    for mode in ("default", "bypassPermissions"):
        decision = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert decision.behavior == "deny", (mode, decision)


@pytest.mark.parametrize(
    "command", ["make -E 'go:;@curl -s x' go", "make -E $'go:\\n\\t-python3 setup.py' go"]
)
def test_a_recipe_no_rule_allows_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize(
    "command",
    [
        "make -E 'hi:;@echo hello' hi",
        "make -E 'CFLAGS += -O2' all",
        "make --eval $'t:\\n\\t@echo a\\n\\t-echo b' t",
        "make all",
    ],
)
def test_allowed_recipes_run(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
