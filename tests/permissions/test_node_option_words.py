"""NODE_OPTIONS (and a package runner's `--node-options`) is split as node splits it
(node_option_words): only `"` quotes, a backslash escapes only inside them, `'` is an ordinary
character. A value a shell would read as one harmless `--title` holds a `--require` for node,
and is set blind; a value node refuses, or reads otherwise than the node before quotes, is no
harmless one either."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide
from tether.permissions.node_option_words import node_option_words

from .conftest import ContextFactory, Tree

ALLOW = ["Bash(node *)", "Bash(npm *)", "Bash(env *)", "Bash(export *)", "Bash(pnpm install)"]
RULES = {"permissions": {"allow": ALLOW, "deny": ["Bash(curl *)", "Read(.env)"]}}
BLIND = (
    "sets NODE_OPTIONS, which changes what programs run or load: it may run what deny rule "
    "Bash(curl *) forbids; write the command plainly"
)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("--title='a --require ./x.js b'", ("--title='a", "--require", "./x.js", "b'")),
        ("--title=a\\ --require=./x.js", ("--title=a\\", "--require=./x.js")),
        ('--title="a --require ./x.js"', ("--title=a --require ./x.js",)),
        ('--title="a\\" --require ./x.js"', ('--title=a" --require ./x.js',)),
        ('--title="a\\\\" -r ./x.js', ("--title=a\\", "-r", "./x.js")),
        ("--a\t--b  --c", ("--a\t--b", "--c")),
        ('""', ()),
        ('--title="open', None),
        ('--title="a\\', None),
    ],
)
def test_values_are_split_by_nodes_rules(value: str, words: tuple[str, ...] | None) -> None:
    assert node_option_words(value) == words


@pytest.mark.parametrize(
    "command",
    [
        "NODE_OPTIONS=\"--title='a --require ./x.js --title=b'\" npm run build",
        "NODE_OPTIONS=\"--title='a -r ./x.js b'\" npm test",
        "NODE_OPTIONS=\"--title='a -r ./x.js b'\" pnpm install",
        "NODE_OPTIONS='--title=a\\ --require=./x.js' node app.js",
        "NODE_OPTIONS=\"--title='a --import=data:text/javascript,1 b'\" npm run build",
        "export NODE_OPTIONS=\"--title='a -r ./x.js b'\" && npm run build",
        "env \"NODE_OPTIONS=--title='a -r ./x.js b'\" npm run build",
        # Quotes node before 12 kept: a `--require` to it.
        "NODE_OPTIONS='--title=\"a --require ./x.js\"' node app.js",
        # node refuses these; the engine cannot call them harmless.
        "NODE_OPTIONS='--title=\"a\\' node app.js",
    ],
)
def test_values_node_splits_otherwise_than_a_shell_are_set_blind(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("deny", "Bash(curl *)", BLIND)
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


@pytest.mark.parametrize(
    "command",
    [
        "NODE_OPTIONS='--title=a\\b --enable-source-maps' node app.js",
        'NODE_OPTIONS="--title=it\'s --max-old-space-size=4096" node app.js',
    ],
)
def test_backslashes_and_apostrophes_node_keeps_are_harmless(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("allow", "Bash(node *)", "allowed by Bash(node *)")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


RUNNER = (
    "npm starts node with the options {}: code not read; it may run what deny rule "
    "Bash(curl *) covers"
)


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        (
            "npm run build --node-options=\"--title='a --require ./x.js b'\"",
            "\"--title='a --require ./x.js b'\"",
        ),
        (
            "npm test --node-options='--title=a\\ --require=./x.js'",
            "'--title=a\\\\ --require=./x.js'",
        ),
    ],
)
def test_a_runners_node_options_are_split_by_nodes_rules(
    command: str, shown: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("ask", None, "npm: " + RUNNER.format(shown))
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


@pytest.mark.parametrize(
    "command",
    [
        "NODE_OPTIONS=--experimental-default-config-file npm run build",
        "NODE_OPTIONS=--openssl-shared-config node app.js",
        "NODE_OPTIONS=--experimental-policy=./out/p.json npm run build",
        "NODE_OPTIONS='--experimental-policy ./out/p.json' npm run build",
    ],
)
def test_options_reading_settings_that_load_code_are_set_blind(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("deny", "Bash(curl *)", BLIND)
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected
