"""mocha's spec files are code it runs: its operands and `--spec` (also the words `npm run
SCRIPT --` passes on to a script running mocha) outside the workspace are code not seen, as
are modules its `-n`/`--node-option` hands node (`-n require=FILE`)."""

from __future__ import annotations

import json

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(npm run *)", "Bash(npx mocha *)"]}}
_NPM = "npm runs prem m postm from package.json: "


def _unseen(word: str, *, npm: bool) -> str:
    return f"{_NPM if npm else ''}runs code from {word}, outside the workspace: not seen"


@pytest.mark.parametrize(
    ("command", "loaded"),
    [
        ("npm run m -- {outside}/spec.js", "{outside}/spec.js"),
        ("npm run m -- ../outside/spec.js", "../outside/spec.js"),
        ("npm run m -- --spec ../outside/spec.js", "../outside/spec.js"),
        ("npm run m -- --spec=../outside/spec.js test", "../outside/spec.js"),
        ("npm run m -- -t 500 '../outside/*.js'", "../outside/*.js"),
        ("npm run m -- -n require=../outside/hook.js", "../outside/hook.js"),
        ("npm run m -- --node-option=import=../outside/hook.mjs", "../outside/hook.mjs"),
        ("npx mocha ../outside/spec.js", "../outside/spec.js"),
        ("npx mocha --grep x ../outside/spec.js", "../outside/spec.js"),
    ],
)
def test_spec_files_outside_the_workspace_are_code_not_seen(
    command: str, loaded: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"package.json": json.dumps({"scripts": {"m": "mocha"}})})
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    why = _unseen(tree.fill(loaded), npm=command.startswith("npm"))
    assert verdict == Decision("ask", None, why)


@pytest.mark.parametrize(
    "command",
    [
        "npm run m",
        "npm run m -- test/app.spec.js",
        "npm run m -- -t 5000 -g 'adds up' test",
        "npm run m -- --spec 'test/**/*.spec.js'",
        "npx mocha -R spec test",
    ],
)
def test_specs_in_the_workspace_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"package.json": json.dumps({"scripts": {"m": "mocha"}})})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    rule = "Bash(npm run *)" if command.startswith("npm") else "Bash(npx mocha *)"
    assert verdict == Decision("allow", rule, f"allowed by {rule}")
