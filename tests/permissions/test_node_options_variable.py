"""NODE_OPTIONS is read with node's own option table (node_options): a value whose every
option loads, writes, reads and opens nothing (`--max-old-space-size=4096`,
`--enable-source-maps`) changes nothing about what runs, so it is no reason to ask, nor to
deny under a Bash deny rule; any other value is set blind, as before (denied where a Bash deny
rule exists). Denied before whatever the value."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

ALLOW = ["Bash(node *)", "Bash(npm *)", "Bash(env *)", "Bash(export *)", "Bash(declare *)"]
RULES = {"permissions": {"allow": ALLOW, "deny": ["Bash(curl *)", "Read(.env)"]}}
BLIND = (
    "sets NODE_OPTIONS, which changes what programs run or load: it may run what deny rule "
    "Bash(curl *) forbids; write the command plainly"
)


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("NODE_OPTIONS=--max-old-space-size=4096 npm run build", "Bash(npm *)"),
        ("NODE_OPTIONS=--max-old-space-size=4096 node app.js", "Bash(node *)"),
        ("NODE_OPTIONS=--max_old_space_size=4096 node app.js", "Bash(node *)"),
        (
            'NODE_OPTIONS="--max-old-space-size=8192 --enable-source-maps" npm test',
            "Bash(npm *)",
        ),
        ("NODE_OPTIONS='--no-deprecation --trace-warnings' npm test", "Bash(npm *)"),
        ("NODE_OPTIONS='--max-old-space-size 4096' npm test", "Bash(npm *)"),
        ("env NODE_OPTIONS=--enable-source-maps npm test", "Bash(npm *)"),
        (
            "export NODE_OPTIONS=--max-old-space-size=4096; npm run build",
            "Bash(export *), Bash(npm *)",
        ),
        (
            "export NODE_OPTIONS=--max-old-space-size=4096 && node app.js",
            "Bash(export *), Bash(node *)",
        ),
        (
            "declare -x NODE_OPTIONS=--enable-source-maps; node app.js",
            "Bash(declare *), Bash(node *)",
        ),
    ],
)
def test_options_that_change_nothing_are_allowed_as_on_the_command_line(
    command: str, rules: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("allow", rules, f"allowed by {rules}")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


@pytest.mark.parametrize(
    "command",
    [
        "NODE_OPTIONS='-r ./x.js' npm test",
        "NODE_OPTIONS=--require=./x.js node app.js",
        "NODE_OPTIONS='--max-old-space-size=4096 --import ./x.mjs' npm test",
        "NODE_OPTIONS=--cpu-prof npm test",
        "NODE_OPTIONS=--inspect=0.0.0.0 node app.js",
        "NODE_OPTIONS='--max-old-space-size=4096 app.js' node b.js",
        "NODE_OPTIONS=--some-v8-flag-tether-does-not-know node app.js",
        'NODE_OPTIONS="$X" node app.js',
        "NODE_OPTIONS='--enable-source-maps -- x' node app.js",
        "NODE_OPTIONS='--title \"unclosed' node app.js",
        "export NODE_OPTIONS=--require=./x.js; node app.js",
        "declare -x NODE_OPTIONS=--require=./x.js; node app.js",
    ],
)
def test_options_that_load_write_or_are_not_known_are_still_set_blind(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("deny", "Bash(curl *)", BLIND)
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected
