"""The words a package manager passes on to a script (`npm run test -- --require X`,
`pnpm run t --require X`, `yarn build --watch`) are judged as part of the script's command,
as the shell the manager starts sees them: each word appended, quoted."""

from __future__ import annotations

import json

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            *("Bash(npm run *)", "Bash(npm test *)", "Bash(npm *)", "Bash(pnpm *)"),
            *("Bash(yarn *)", "Bash(bun *)", "Bash(node *)", "Bash(echo *)"),
        ],
        "deny": ["Bash(curl *)", "Bash(echo secret *)", "Read(./.env)"],
    }
}


@pytest.fixture
def project(tree: Tree) -> Tree:
    scripts = {"test": "node --test", "build": "echo", "show": "cat", "t": "node --test"}
    scripts["fetch"] = "curl --version"
    (tree.ws / "package.json").write_text(json.dumps({"scripts": scripts}))
    (tree.ws / ".env").write_text("TOKEN=1\n")
    (tree.outside / "evil.js").write_text("require('child_process')\n")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "npm run test -- --require {outside}/evil.js",
        "npm test -- --require {outside}/evil.js",
        "npm run-script test -- -r {outside}/evil.js",
        "npm --silent run test -- --import={outside}/evil.js",
        "npm run test {outside}/evil.js",  # a word not an option: passed without --
        "npm run test --require={outside}/evil.js",  # an option npm does not know
        "pnpm run t --require {outside}/evil.js",
        "pnpm run t -- --require {outside}/evil.js",
        "pnpm test --require {outside}/evil.js",
        "yarn run t --require {outside}/evil.js",
        "yarn t --require {outside}/evil.js",
        "yarn test -- --require {outside}/evil.js",
        "bun run t --require {outside}/evil.js",
        "npm run show .env",
        "npm run show -- ./.env",
        "yarn show .env",
    ],
)
def test_words_passed_to_a_script_are_judged_as_its_own(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    line = project.fill(command)
    verdict = decide("Bash", {"command": line}, make_ctx(RULES))
    assert verdict.behavior in ("ask", "deny"), (line, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "npm run build secret x",
        "npm run build -- secret x",
        "npm run build --silent -- secret x",
        "pnpm run build secret x",
        "yarn build secret x",
        "yarn run build -- secret",
    ],
)
def test_a_denied_command_made_by_the_words_passed_is_denied(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert "is denied by" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "npm run build --watch",  # the script with --watch, or npm's setting: both harmless
        "npm run build -- --watch",
        "npm test -- --test-name-pattern=unit",
        "npm run test --silent",  # npm's own option: not the script's
        "pnpm run build --watch",
        "yarn build --watch",
        "npm run build 'a b' \"c'd\"",
    ],
)
def test_harmless_words_passed_stay_allowed(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_a_word_known_only_as_it_runs_is_code_not_read(
    project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": 'npm run test -- "$X"'}, make_ctx(RULES))
    assert verdict.behavior == "ask"
    assert "npm: it passes the script test words known only as it runs" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "npm run build --node_options='-r ./out/evil.js'",
        "npm run build --script_shell=./out/evil.sh",
        "npm run build --scriptShell=./out/evil.sh",
        "npm run build --SCRIPT-SHELL=./out/evil.sh",
        "npm run build --onload-script=./out/evil.js",
    ],
)
def test_a_spelling_another_npm_may_read_as_a_setting_is_still_asked(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "as a setting tether does not know" in verdict.reason
