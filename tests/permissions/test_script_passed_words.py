"""The words a package manager passes after `--` to the scripts it runs are judged in the
script's text alone (`npm test -- --config jest.config.js` is `jest --config
jest.config.js`, which reads its configuration), not also as files the package manager
itself may write (they were: "may write jest.config.js", asked)."""

from __future__ import annotations

import json

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(npm test *)", "Bash(npm run *)"],
        "deny": ["Read(./.env)", "Bash(curl *)"],
    }
}


@pytest.fixture
def project(tree: Tree) -> Tree:
    scripts = {"test": "jest", "c": "cat README.md", "lint": "eslint src"}
    tree.write(
        {
            "package.json": json.dumps({"name": "p", "scripts": scripts}),
            "jest.config.js": "module.exports = {};\n",
        }
    )
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "npm test -- --config jest.config.js",
        "npm test -- -c jest.config.js",
        "npm test -- --config=jest.config.js",
        "npm run test -- --config jest.config.js src",
    ],
)
def test_a_config_in_the_workspace_passed_to_the_script_is_allowed(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    rule = "Bash(npm run *)" if command.startswith("npm run") else "Bash(npm test *)"
    assert (verdict.behavior, verdict.reason) == ("allow", f"allowed by {rule}"), command


@pytest.mark.parametrize(
    ("command", "behavior"),
    [
        ("npm test -- --config .env", "deny"),
        ("npm run c -- .env", "deny"),
        ("npm test -- .env", "ask"),
        ("npm test -- --config ../outside/x.js", "ask"),
    ],
)
def test_the_passed_words_still_meet_the_rules_in_the_script(
    command: str, behavior: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == behavior, (command, verdict.reason)
