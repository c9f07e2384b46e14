"""`npm exec NAME` with no `--package`: npm runs NAME from a `node_modules/.bin` up from where
it runs, and otherwise fetches the package NAME from its registry and runs it. Found there,
it is the local program, judged as such (allowed by `Bash(npm *)` when harmless); not found,
it is fetched code, as `npm exec --package=NAME NAME` is: a rule naming npm does not cover
it, one naming `npm exec` does."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(npm *)", "Bash(npx *)"], "deny": ["Bash(curl *)"]}}


@pytest.fixture
def local(tree: Tree) -> Tree:
    tree.write({"package.json": '{"name": "p"}\n', "node_modules/.bin/tsc": "#!/bin/sh\n"})
    (tree.ws / "node_modules/.bin/tsc").chmod(0o755)
    return tree


@pytest.mark.parametrize(
    "command", ["npm exec tsc", "npm exec -- tsc --noEmit", "npm x tsc", "cd src && npm exec tsc"]
)
def test_a_local_program_is_allowed(command: str, local: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize(
    "command",
    [
        "npm exec cowsay",
        "npm exec -- cowsay hi",
        "npm x cowsay",
        "npm --silent exec cowsay",
        "npm exec cowsay@1.2.0",
        "npm exec @scope/tool",
        "npm exec github:someone/tool",
        "npm exec tsc@latest",
    ],
)
def test_a_package_not_found_is_fetched_code(
    mode: str, command: str, local: Tree, make_ctx: ContextFactory
) -> None:
    # Allowed before by `Bash(npm *)`: npm fetches it from its registry and runs it.
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert "fetched from a registry" in verdict.reason


def test_a_rule_naming_npm_exec_allows_it(local: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(npm exec *)"], "deny": ["Bash(curl *)"]}})
    verdict = decide("Bash", {"command": "npm exec cowsay"}, ctx)
    assert verdict.behavior == "allow", verdict.reason
