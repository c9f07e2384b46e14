"""Files a JavaScript runtime loads configuration or environment from without a path on its
command line (`node --experimental-default-config-file`: `./node.config.json`, whose
`nodeOptions` may `--import` code; deno's bare `--env-file`/`--env`: `./.env`), and node's
valued options read as node reads them (`--watch-path DIR` takes DIR: the next word is the
script, judged as code). The node here predates the config file, so these are engine cases."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(node *)", "Bash(deno *)", "Bash(printf *)"],
        "deny": ["Bash(curl *)", "Read(./.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "printf x > node.config.json; node --experimental-default-config-file src/app.js",
        "node --experimental-default-config-file src/app.js; printf x > node.config.json",
        "printf x > .env.dev; deno run --env-file=.env.dev src/app.js",
        "printf x > .env.dev; deno run --env=.env.dev src/app.js",
    ],
)
def test_configuration_the_command_writes_is_code_not_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert "which this command writes" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "deno run --env-file src/app.js",
        "deno run --env src/app.js",
        "deno run -A --env-file -- src/app.js",
    ],
)
def test_a_bare_deno_env_file_reads_dot_env(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert "Read(./.env)" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "node --watch-path src {outside}/evil.js",
        "node --watch-path src/app.js {outside}/evil.js",
        "node --redirect-warnings w.txt {outside}/evil.js",
        "node --test-reporter-destination out.txt {outside}/evil.js",
        "node --disable-warning ExperimentalWarning {outside}/evil.js",
        "deno run --env-file={outside}/x.env src/app.js",
        "node --experimental-default-config-file --watch-path {outside} {outside}/evil.js",
    ],
)
def test_the_script_after_a_valued_option_is_judged(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    line = tree.fill(command)
    verdict = decide("Bash", {"command": line}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (line, verdict.reason)
    assert "outside the workspace" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "node --experimental-default-config-file src/app.js",
        "node --watch-path src --watch src/app.js",
        "node --watch-path=src --watch src/app.js",
        "deno run --env-file=.env.example src/app.js",
    ],
)
def test_workspace_configuration_stays_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "allow", (command, verdict.reason)
