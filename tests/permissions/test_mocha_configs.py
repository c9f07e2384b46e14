"""mocha's configuration files are read for the modules they make it load, as its options
are: a `.mocharc.yml`/`.yaml`/`.json`/`.jsonc` or package.json `mocha` key naming code
outside the workspace (`require`, `import`, `spec`, `file`, `ui`, `reporter`) is asked, one
naming a denied file is denied, one that cannot be parsed is code not seen (denied where a
Bash deny rule could match); `--config`/`--no-config` leave the discovery out. Before,
`Bash(mocha *)` ran what the rc file named, wherever it was."""

from __future__ import annotations

import json

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(mocha *)", "Bash(npx *)", "Bash(npm test)"],
        "deny": ["Read(./.env)", "Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    ("file", "text", "named"),
    [
        (".mocharc.yml", "require:\n  - ../outside/hook.js\n", "../outside/hook.js"),
        (".mocharc.yaml", "require: ../outside/hook.js\n", "../outside/hook.js"),
        (".mocharc.json", '{"import": ["../outside/hook.mjs"]}', "../outside/hook.mjs"),
        (".mocharc.jsonc", '// setup\n{"spec": "../outside/t.js" /* x */}', "../outside/t.js"),
        (".mocharc.yml", "file: /tmp/elsewhere/t.js\n", "/tmp/elsewhere/t.js"),
        (".mocharc.yml", "ui: ../outside/ui.js\n", "../outside/ui.js"),
        (".mocharc.yml", "reporter: ../outside/rep.js\n", "../outside/rep.js"),
        ("package.json", json.dumps({"mocha": {"require": "../outside/h.js"}}), "../outside/h.js"),
    ],
)
@pytest.mark.parametrize("command", ["mocha", "npx mocha test", "npx -y mocha --bail"])
def test_code_the_configuration_names_outside_is_asked(
    file: str, text: str, named: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({file: text})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    shown = named if named.startswith("/") else f"{tree.ws}/{named}"
    reason = f"mocha's configuration loads code from {shown}, outside the workspace: not seen"
    assert (verdict.behavior, verdict.reason) == ("ask", reason), (file, command)


def test_a_denied_file_the_configuration_requires_is_denied(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({".mocharc.yml": "require: ./.env\n"})
    verdict = decide("Bash", {"command": "mocha"}, make_ctx(RULES))
    reason = (
        f"mocha's configuration loads code from {tree.ws}/.env: "
        f"reading {tree.ws / '.env'} is denied by Read(./.env)"
    )
    assert verdict == Decision("deny", "Read(./.env)", reason)


def test_a_configuration_that_cannot_be_read_is_asked(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({".mocharc.json": "{not json"})
    verdict = decide("Bash", {"command": "mocha"}, make_ctx(RULES))
    reason = (
        "mocha's configuration here cannot be read: it may run what deny rule Bash(curl *) "
        "forbids; write the command plainly"
    )
    assert verdict == Decision("deny", "Bash(curl *)", reason)


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("require: ./test/setup.js\nspec: 'test/**/*.spec.js'\n", "mocha"),
        ("require:\n  - ts-node/register\n", "npx mocha"),
        ("require: ../outside/hook.js\n", "mocha --no-config"),
        ("require: ../outside/hook.js\n", "mocha --config ./other.yml"),
    ],
)
def test_code_of_the_workspace_or_installed_modules_stays_allowed(
    text: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({".mocharc.yml": text, "test/setup.js": "", "other.yml": ""})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", verdict
