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


INLINE = (
    "inline code is not read by tether (node is not parsed here), so it may run programs or"
    " open files the rules forbid"
)
FROM_INPUT = (
    "runs code from its input, not seen: it may run what deny rule Bash(curl *) forbids;"
    " write the command plainly"
)
CODE = [
    ('tsx -e \'require("child_process").execSync("c"+"url x")\'', "ask", None, f"tsx's {INLINE}"),
    ("tsx --eval='x()'", "ask", None, f"tsx's {INLINE}"),
    ("tsx -p 'process.env'", "ask", None, f"tsx's {INLINE}"),
    ("tsx --tsconfig t.json --print 'x()'", "ask", None, f"tsx's {INLINE}"),
    ("tsx --tsconfig=t.json -pe 'x()'", "ask", None, f"tsx's {INLINE}"),
    ("tsx --input-type=module -e 'import(\"./x.js\")'", "ask", None, f"tsx's {INLINE}"),
    ("tsx watch -e 'x()'", "ask", None, f"tsx's {INLINE}"),
    ("ts-node -p 'x()+\"\"'", "ask", None, f"ts-node's {INLINE}"),
    ("ts-node -T --eval='x()'", "ask", None, f"ts-node's {INLINE}"),
    ("ts-node-esm -P t.json -e 'x()'", "ask", None, f"ts-node-esm's {INLINE}"),
    (
        'tsx -e \'require("fs").readFileSync(".env")\'',
        "deny",
        "Read(.env)",
        "tsx's code names .env: reading {ws}/.env is denied by Read(.env)",
    ),
    (
        'ts-node -p \'require("fs").readFileSync(".env")\'',
        "deny",
        "Read(.env)",
        "ts-node's code names .env: reading {ws}/.env is denied by Read(.env)",
    ),
    ("echo 'x()' | tsx", "deny", "Bash(curl *)", f"tsx {FROM_INPUT}"),
    ("echo 'x()' | tsx -", "deny", "Bash(curl *)", f"tsx {FROM_INPUT}"),
    ("tsx - <<'E'\nx()\nE", "deny", "Bash(curl *)", f"tsx {FROM_INPUT}"),
    ("tsx --no-cache < src/a.ts", "deny", "Bash(curl *)", f"tsx {FROM_INPUT}"),
    ("echo 'x()' | tsx watch", "deny", "Bash(curl *)", f"tsx {FROM_INPUT}"),
    ("echo 'x()' | ts-node -T", "deny", "Bash(curl *)", f"ts-node {FROM_INPUT}"),
    ("echo 'x()' | ts-node -i", "deny", "Bash(curl *)", f"ts-node {FROM_INPUT}"),
]
"""Code on the line or from the input, given to a runner: node's inline code and input, judged
as `node -e` and `node` reading its input are. Allowed before under `Bash(tsx *)`: only a
scan of the code's literal text was made, so `"c"+"url"` ran."""


def test_runner_inline_and_input_code_is_nodes(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    wanted = expected(CODE, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


def test_runner_code_is_judged_as_node_judges_it(tree: Tree, make_ctx: ContextFactory) -> None:
    """The same code through node and through each runner gets the same decision."""
    tree.write(FILES)
    allow = [*ALLOW, "Bash(node *)"]
    ctx = make_ctx({"permissions": {"allow": allow, "deny": DENY}})
    forms = ["{} -e 'x()'", "{} -p 'x()'", "echo 'x()' | {}", "{} - < src/a.ts", "{} --version"]
    for form in forms:
        node = bash(form.format("node"), ctx)
        for runner in RUNNERS:
            got = bash(form.format(runner), ctx)
            rule = node.rule if node.behavior != "allow" else f"Bash({runner} *)"
            reason = node.reason.replace("node", runner, 1)
            if node.behavior == "allow":
                reason = f"allowed by {rule}"
            assert got == Decision(node.behavior, rule, reason), form.format(runner)
