"""node's own environment variables naming code or files (node_variables:
`NODE_REDIRECT_WARNINGS=F` is `--redirect-warnings=F`), and pnpm's settings by `pnpm_config_*`
in any letter case, are set blind as `NODE_OPTIONS` with the same option is; node's variables
changing nothing of the kind stay allowed. pnpm's `--config.KEY=VALUE` and
`--use-node-version` are judged as the options they stand for (pnpm_settings)."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide
from tether.permissions.node_variables import NODE_VARIABLES

from .conftest import ContextFactory, Tree

ALLOW = ["Bash(node *)", "Bash(npm run *)", "Bash(pnpm run *)", "Bash(pnpm install)"]
RULES = {"permissions": {"allow": ALLOW, "deny": ["Bash(curl *)", "Read(./.env)"]}}


def blind(name: str) -> Decision:
    why = f"sets {name}, which changes what programs run or load: it may run what deny rule"
    return Decision(
        "deny", "Bash(curl *)", f"{why} Bash(curl *) forbids; write the command plainly"
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("NODE_REDIRECT_WARNINGS", "{outside}/w"),
        ("NODE_REDIRECT_WARNINGS", ".env"),
        ("NODE_V8_COVERAGE", "{outside}"),
        ("NODE_V8_COVERAGE", "."),
        ("NODE_COMPILE_CACHE", "{outside}"),
        ("NODE_EXTRA_CA_CERTS", ".env"),
        ("NODE_EXTRA_CA_CERTS", "secrets/key.pem"),
        ("NODE_REPL_HISTORY", "{outside}/h"),
        ("NODE_ICU_DATA", "{outside}"),
        ("NODE_PATH", "{outside}"),
        ("NODE_PRESERVE_SYMLINKS", "1"),
        ("NODE_CHANNEL_FD", "3"),
        ("NODE_TLS_REJECT_UNAUTHORIZED", "0"),
        ("SSL_CERT_FILE", ".env"),
        ("pnpm_config_script_shell", "./out/evil.sh"),
        ("PNPM_CONFIG_SCRIPT_SHELL", "./out/evil.sh"),
        ("Pnpm_Config_Node_Options", "-r ./out/evil.js"),
        ("pnpm_config_pnpmfile", "./out/evil.js"),
        ("Npm_Config_Script_Shell", "./out/evil.sh"),
    ],
)
@pytest.mark.parametrize("runs", ["npm run build", "pnpm install", "node scripts/build.js"])
def test_variables_naming_code_or_files_are_set_blind(
    name: str, value: str, runs: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    command = tree.fill(f"{name}={value} {runs}")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == blind(name)


@pytest.mark.parametrize(
    "name", sorted(name for name, does in NODE_VARIABLES.items() if does == "inert")
)
def test_variables_changing_nothing_are_allowed(
    name: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    command = f"{name}=1 npm run build"
    expected = Decision("allow", "Bash(npm run *)", "allowed by Bash(npm run *)")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


RUNNER = "pnpm: {}; it may run what deny rule Bash(curl *) covers"


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (
            "pnpm run --config.node-options='-r ./out/evil.js' build",
            "pnpm starts node with the options '-r ./out/evil.js': code not read",
        ),
        (
            "pnpm run --config.node_options '-r ./out/evil.js' build",
            "pnpm starts node with the options '-r ./out/evil.js': code not read",
        ),
        (
            "pnpm run --config.script-shell=./out/evil.sh build",
            "pnpm runs its scripts with ./out/evil.sh, which tether does not read",
        ),
        (
            "pnpm run --use-node-version=18 build",
            "pnpm --use-node-version=18 runs the scripts with a node it fetches",
        ),
        (
            "pnpm run --config.pnpmfile=./out/evil.js build",
            "pnpm --config.pnpmfile sets a setting tether does not read",
        ),
    ],
)
def test_pnpm_settings_on_its_command_line_are_the_options_they_stand_for(
    command: str, reason: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("ask", None, RUNNER.format(reason))
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


def test_a_pnpm_setting_changing_only_its_output_is_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    command = "pnpm run --config.loglevel=silent build"
    expected = Decision("allow", "Bash(pnpm run *)", "allowed by Bash(pnpm run *)")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected
