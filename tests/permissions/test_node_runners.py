"""TypeScript runners that start node with node's own options (`tsx`, `tsx watch`, `ts-node`,
`ts-node-esm`, `ts-node-script`): their command line is judged as node's once their own options
are taken off, by the same table (a debugger off loopback, a file written outside, an option
not known, a module their own option loads: asked). Allowed before under `Bash(tsx *)` and its
kin, each of the asked ones."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash, expected

RUNNERS = ["tsx", "ts-node", "ts-node-esm", "ts-node-script"]
ALLOW = [f"Bash({name} *)" for name in RUNNERS] + ["Bash(npx *)"]
DENY = ["Bash(curl *)", "Read(.env)"]
DEBUGGER = "opens a debugger to the network: whoever reaches it runs code"
FILES = {"src/a.ts": "console.log(1)\n", "local.js": "module.exports = 1\n"}

JUDGED = [
    ("tsx --inspect=0.0.0.0 src/a.ts", "ask", None, f"node --inspect=0.0.0.0 {DEBUGGER}"),
    (
        "tsx watch --inspect-brk=0:9229 src/a.ts",
        "ask",
        None,
        f"node --inspect-brk=0:9229 {DEBUGGER}",
    ),
    (
        "tsx --import ../outside/x.js src/a.ts",
        "ask",
        None,
        "runs code from ../outside/x.js, outside the workspace: not seen",
    ),
    (
        "tsx --redirect-warnings={outside}/w src/a.ts",
        "ask",
        None,
        "writes {outside}/w, outside the workspace",
    ),
    (
        "tsx --env-file=.env src/a.ts",
        "deny",
        "Read(.env)",
        "runs code from .env: reading {ws}/.env is denied by Read(.env)",
    ),
    (
        "tsx --experimental-network-imports src/a.ts",
        "ask",
        None,
        "node --experimental-network-imports imports code over the network",
    ),
    ("tsx --frob src/a.ts", "ask", None, "node option --frob is not one tether knows"),
    ("ts-node --inspect=1.2.3.4 src/a.ts", "ask", None, f"node --inspect=1.2.3.4 {DEBUGGER}"),
    (
        "ts-node -P tsconfig.json --tls-keylog {outside}/k src/a.ts",
        "ask",
        None,
        "writes {outside}/k, outside the workspace",
    ),
    (
        "ts-node --compiler ./evil src/a.ts",
        "ask",
        None,
        "ts-node --compiler ./evil loads code not read",
    ),
    (
        "ts-node-esm --import {outside}/evil.js src/a.ts",
        "ask",
        None,
        "runs code from {outside}/evil.js, outside the workspace: not seen",
    ),
    (
        "ts-node-script --diagnostic-dir={outside} --report-on-signal src/a.ts",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    ("npx tsx --inspect=0.0.0.0 src/a.ts", "ask", None, f"node --inspect=0.0.0.0 {DEBUGGER}"),
]
"""Node's options given to a runner, its own options before and between them."""

ALLOWED = [
    ("tsx src/a.ts", "tsx"),
    ("tsx watch src/a.ts", "tsx"),
    ("tsx -r ./local.js src/a.ts", "tsx"),
    ("tsx --inspect src/a.ts", "tsx"),
    ("tsx --inspect=127.0.0.1:9229 src/a.ts", "tsx"),
    ("tsx --tsconfig tsconfig.json --no-cache src/a.ts", "tsx"),
    ("tsx src/a.ts --inspect=0.0.0.0", "tsx"),
    ("ts-node -T -P tsconfig.json src/a.ts", "ts-node"),
    ("ts-node-esm src/a.ts", "ts-node-esm"),
    ("ts-node-script --max-old-space-size=4096 src/a.ts", "ts-node-script"),
]
"""The runner's own options, node's harmless ones, and words that are the script's."""


def test_runner_options_are_judged_as_nodes(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    wanted = expected(JUDGED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


@pytest.mark.parametrize(("command", "runner"), ALLOWED)
def test_runner_options_known_harmless_stay_allowed(
    command: str, runner: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    rule = f"Bash({runner} *)"
    assert bash(command, ctx) == Decision("allow", rule, f"allowed by {rule}")
