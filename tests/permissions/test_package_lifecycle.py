"""Every package manager command that runs package scripts or loads code, judged as `npm
run` is: the commands that re-install the tree (`npm audit fix`, `uninstall`, `pnpm deploy`,
`bun pm trust`) take the dependencies package.json names, so a `file:` one outside the
workspace is code not seen; `npm diff` packs the local package (its `prepare` runs); the
`--node-options` setting (any nopt prefix, either spelling of its value) starts every node a
script runs with options that may load code: code not read unless each is known harmless."""

from __future__ import annotations

import json

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(npm *)", "Bash(pnpm *)", "Bash(yarn *)", "Bash(bun *)", "Bash(node *)"],
        "deny": ["Bash(sentinel *)"],
    }
}

REINSTALLS = [
    "npm audit fix",
    "npm audit fix --force",
    "npm --loglevel warn audit fix",
    "npm uninstall left-pad",
    "npm rm left-pad",
    "npm un left-pad",
    "pnpm remove left-pad",
    "pnpm deploy --filter . out",
    "yarn remove left-pad",
    "bun pm trust --all",
    "bun remove left-pad",
]


@pytest.mark.parametrize("command", REINSTALLS)
def test_commands_that_reinstall_take_outside_dependencies(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    manifest = {"name": "p", "dependencies": {"o": f"file:{tree.outside}/pkg"}}
    tree.write({"package.json": json.dumps(manifest)})
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior == "ask", (command, default.reason)
    assert "outside the workspace" in default.reason
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


@pytest.mark.parametrize("command", ["npm diff", "npm diff --diff=left-pad@1.0.0"])
def test_npm_diff_runs_prepare(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({"package.json": json.dumps({"scripts": {"prepare": "sentinel p"}})})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


NODE_OPTIONS = [
    "npm start --node-options='--require ./hook.js'",
    "npm stop --node-options='--require ./hook.js'",
    "npm restart --node-opt='--import ./hook.mjs'",
    "npm test --node-options '-r ./hook.js'",
    "npm test --node-options=--require=./hook.js",
    "npm --node-options='--loader ./hook.mjs' test",
    "npm run build --node-options='--env-file=.env.dev'",
    "pnpm test --node-options='--require ./hook.js'",
    'npm test --node-options="$OPTS"',
    "npm test --node-options='--max-old-space-size=4096 --require ./hook.js'",
]


@pytest.mark.parametrize("command", NODE_OPTIONS)
def test_node_options_setting_is_code_not_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    scripts = {"start": "node a.js", "stop": "node a.js", "test": "node a.js", "build": "true"}
    tree.write({"package.json": json.dumps({"scripts": scripts}), "hook.js": "1\n"})
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior == "ask", (command, default.reason)
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


ORDINARY = [
    "npm test --node-options=--max-old-space-size=4096",
    "npm test --node-options='--enable-source-maps --trace-warnings'",
    "npm test",
    "npm audit",
    "npm audit --json",
    "npm uninstall left-pad",
]


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_package_commands_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    manifest = {"name": "p", "scripts": {"test": "node a.js"}, "dependencies": {"x": "^1"}}
    tree.write({"package.json": json.dumps(manifest)})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "bun pm pack",
        "bun pm pack --destination out",
        "bun pm version patch",
        "bun --cwd sub pm pack",
        "cd sub && bun pm pack",
    ],
)
def test_bun_pm_runs_the_lifecycle_its_command_runs(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    # `bun pm pack` packs as `bun pack` does: prepack, prepare, postpack run.
    scripts = {s: "sentinel p" for s in ("prepack", "prepare", "postpack", "preversion")}
    tree.write({"package.json": json.dumps({"scripts": scripts})})
    tree.write({"sub/package.json": json.dumps({"scripts": scripts})})
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    # `bun c` is `bun create` (bun's aliases: runner_tables.BUN_ALIASES).
    [
        "bun pm frobnicate",
        "bun create ./tpl app",
        "bun create x",
        "bun c vite x",
        "bun c ./tpl app",
    ],
)
def test_bun_commands_of_unknown_scripts_are_code_not_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"package.json": json.dumps({"scripts": {"prepack": "sentinel p"}})})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


@pytest.mark.parametrize("command", ["bun pm ls", "bun pm bin", "bun pm cache rm", "bun pm"])
def test_bun_pm_listings_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({"package.json": json.dumps({"scripts": {"prepack": "sentinel p"}})})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
