"""Code a JavaScript tool's options load (prettier's `--plugin`, eslint's and stylelint's
`--config`, jest's and vitest's `--config`, tsc's `-p`, tsx's `--tsconfig`) is judged where it
really is: a word without `./` is a file where the tool runs, and a workspace symlink to
outside (`out -> ../outside`) leads outside, in the space and the `=` form alike, run through
npx or an npm script (`npm run p -- --plugin out/p.js`), or named by a variable
(`TSX_TSCONFIG_PATH`)."""

from __future__ import annotations

import json
import os

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

ALLOW = [
    *("Bash(npx prettier *)", "Bash(npx eslint *)", "Bash(npx stylelint *)", "Bash(npx tsc *)"),
    *("Bash(npx jest *)", "Bash(npx vitest *)", "Bash(tsx *)", "Bash(ts-node *)"),
    "Bash(npm run *)",
]
RULES = {"permissions": {"allow": ALLOW}}
_SCRIPTS = {"p": "prettier --check .", "e": "eslint src"}


@pytest.fixture
def linked(tree: Tree) -> Tree:
    tree.write({"package.json": json.dumps({"name": "p", "scripts": _SCRIPTS})})
    tree.write({"src/a.ts": "let a = 1\n", "tsconfig.json": "{}\n", "c.js": "1\n"})
    for name in ("p.js", "c.js", "tsconfig.json"):
        (tree.outside / name).write_text("1\n")
    os.symlink(tree.outside, tree.ws / "out")
    return tree


def _outside(word: str) -> Decision:
    return Decision("ask", None, f"runs code from {word}, outside the workspace: not seen")


@pytest.mark.parametrize(
    ("command", "loaded"),
    [
        ("npx prettier --plugin out/p.js src", "./out/p.js"),
        ("npx prettier --plugin=out/p.js src", "./out/p.js"),
        ("npx prettier --config out/c.js src", "./out/c.js"),
        ("npx prettier --config=out/c.js src", "./out/c.js"),
        ("npx prettier --plugin=src/../out/p.js src", "./src/../out/p.js"),
        ("npx eslint -c out/c.js src", "./out/c.js"),
        ("npx eslint --config=out/c.js src", "./out/c.js"),
        ("npx eslint --rulesdir=out src", "./out"),
        ("npx stylelint --config=out/c.js src", "./out/c.js"),
        ("npx stylelint --custom-formatter=out/p.js src", "./out/p.js"),
        ("npx jest --config=out/c.js", "./out/c.js"),
        ("npx vitest --config=out/c.js", "./out/c.js"),
        ("npx tsc -p out", "./out"),
        ("npx tsc --project=out/tsconfig.json", "./out/tsconfig.json"),
        ("tsx --tsconfig=out/tsconfig.json src/a.ts", "./out/tsconfig.json"),
        ("tsx --tsconfig out/tsconfig.json src/a.ts", "./out/tsconfig.json"),
        ("tsx --tsconfig=../outside/tsconfig.json src/a.ts", "../outside/tsconfig.json"),
        ("tsx watch --tsconfig=out/tsconfig.json src/a.ts", "./out/tsconfig.json"),
        ("tsx --title x --tsconfig=out/tsconfig.json src/a.ts", "./out/tsconfig.json"),
        ("TSX_TSCONFIG_PATH=../outside/tsconfig.json tsx src/a.ts", "../outside/tsconfig.json"),
        ("TSX_TSCONFIG_PATH=out/tsconfig.json tsx src/a.ts", "./out/tsconfig.json"),
        ("ts-node -P out/tsconfig.json src/a.ts", "./out/tsconfig.json"),
        ("ts-node --project=out/tsconfig.json src/a.ts", "./out/tsconfig.json"),
        ("TS_NODE_PROJECT=out/tsconfig.json ts-node src/a.ts", "./out/tsconfig.json"),
    ],
)
def test_code_through_a_link_or_a_bare_word_is_judged_where_it_leads(
    command: str, loaded: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision == _outside(loaded)


@pytest.mark.parametrize(
    ("command", "script", "loaded"),
    [
        ("npm run p -- --plugin out/p.js", "p", "./out/p.js"),
        ("npm run p -- --config=out/c.js", "p", "./out/c.js"),
        ("npm run e -- -c out/c.js", "e", "./out/c.js"),
    ],
)
def test_code_passed_to_an_npm_script_is_judged_where_it_leads(
    command: str, script: str, loaded: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = f"npm runs pre{script} {script} post{script} from package.json: "
    assert decision == Decision("ask", None, reason + _outside(loaded).reason)


@pytest.mark.parametrize(
    "command",
    [
        "npx prettier --plugin prettier-plugin-tailwindcss --check src",
        "npx prettier --config c.js --check src",
        "npx eslint -f stylish -c c.js src",
        'npx jest --config \'{"testEnvironment": "node"}\'',
        "npx tsc -p .",
        "npx tsc --project tsconfig.json",
        "tsx --tsconfig tsconfig.json src/a.ts",
        "tsx --tsconfig=tsconfig.json src/a.ts",
        "TSX_TSCONFIG_PATH=tsconfig.json tsx src/a.ts",
        "tsx src/a.ts --tsconfig out/tsconfig.json",
    ],
)
def test_code_of_the_workspace_stays_allowed(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
