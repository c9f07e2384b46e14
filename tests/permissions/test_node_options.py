"""node's own options, each resolved and checked as what it does: a file or directory it
writes (warnings, reports, profiles, key logs, local storage, test reports; and what the
profiling and report flags write where node runs or in the directory an option names), a
debugger it opens to the network (`--inspect*=HOST`, `--inspect-port`, `--debug-port` with a
host other than loopback), code it imports over the network, and an option tether does not
know (asked: a V8 option may do anything); the same through `--node-options` and
NODE_OPTIONS. Allowed before under `Bash(node *)`, each of the asked ones."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash, expected

ALLOW = ["Bash(node *)", "Bash(nodejs *)", "Bash(node22 *)", "Bash(npm *)", "Bash(env *)"]
ALLOW += ["Bash(timeout *)"]
DENY = ["Bash(npx *)", "Bash(npm exec *)", "Bash(curl *)", "Read(.env)"]

MAY_RUN = ": it may run what deny rule Bash(npx *) forbids; write the command plainly"
DEBUGGER = "opens a debugger to the network: whoever reaches it runs code"
CLAUDE_FILES = "Claude Code's settings, hooks, skills, agents, commands"
PROTECTED = "asked in every mode but bypassPermissions, whatever the rules allow"
CHANGES = "which changes what programs run or load"

DENIED = [
    (
        "node --env-file=.env app.js",
        "deny",
        "Read(.env)",
        "runs code from .env: reading {ws}/.env is denied by Read(.env)",
    ),
    (
        "node --env-file-if-exists .env app.js",
        "deny",
        "Read(.env)",
        "runs code from .env: reading {ws}/.env is denied by Read(.env)",
    ),
    (
        "node --redirect-warnings=.env app.js",
        "ask",
        "Read(.env)",
        "may read .env, which deny rule Read(.env) covers",
    ),
    (
        "NODE_OPTIONS=--redirect-warnings={outside}/w node app.js",
        "deny",
        "Bash(npx *)",
        f"sets NODE_OPTIONS, {CHANGES}{MAY_RUN}",
    ),
    (
        "NODE_OPTIONS='--inspect=0.0.0.0:9229' node app.js",
        "deny",
        "Bash(npx *)",
        f"sets NODE_OPTIONS, {CHANGES}{MAY_RUN}",
    ),
]
"""Under deny rules: a denied file it reads, writes or loads its environment from, and
options given through NODE_OPTIONS."""

ASKED = [
    (
        "node --redirect-warnings={outside}/w.txt app.js",
        "ask",
        None,
        "writes {outside}/w.txt, outside the workspace",
    ),
    (
        "node --redirect-warnings {outside}/w.txt app.js",
        "ask",
        None,
        "writes {outside}/w.txt, outside the workspace",
    ),
    (
        "nodejs --diagnostic-dir={outside} app.js",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    (
        "node --report-dir {outside} --report-on-signal app.js",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    (
        "node --report-directory={outside} --report-uncaught-exception app.js",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    (
        "node --report-filename={outside}/r.json --report-on-fatalerror app.js",
        "ask",
        None,
        "writes {outside}/r.json, outside the workspace",
    ),
    (
        "node --cpu-prof --cpu-prof-dir={outside} app.js",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    (
        "node --cpu-prof --cpu-prof-name=../outside/x.cpuprofile app.js",
        "ask",
        None,
        "writes {outside}/x.cpuprofile, outside the workspace",
    ),
    (
        "node --heap-prof-dir {outside} --heap-prof app.js",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    (
        "node --heap-prof --diagnostic-dir={outside} app.js",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    (
        "node --tls-keylog={outside}/keys.log app.js",
        "ask",
        None,
        "writes {outside}/keys.log, outside the workspace",
    ),
    (
        "node --prof --logfile={outside}/v8.log app.js",
        "ask",
        None,
        "writes {outside}/v8.log, outside the workspace",
    ),
    (
        "cd {outside} && node --prof {outside}/../ws/app.js",
        "ask",
        None,
        "writes {outside}/isolate-v8.log, outside the workspace",
    ),
    (
        "node --localstorage-file={outside}/ls app.js",
        "ask",
        None,
        "writes {outside}/ls, outside the workspace",
    ),
    (
        "node --test --test-reporter=spec --test-reporter-destination={outside}/r",
        "ask",
        None,
        "writes {outside}/r, outside the workspace",
    ),
    (
        "node --trace-event-file-pattern={outside}/t.json --trace-events-enabled app.js",
        "ask",
        None,
        "writes {outside}/t.json, outside the workspace",
    ),
    (
        "node --redirect-warnings=.claude/settings.json app.js",
        "ask",
        None,
        f"may write .claude/settings.json, which holds {CLAUDE_FILES}: {PROTECTED}",
    ),
    (
        "node22 --redirect-warnings={outside}/w app.js",
        "ask",
        None,
        "writes {outside}/w, outside the workspace",
    ),
    (
        "env node --tls-keylog={outside}/k app.js",
        "ask",
        None,
        "writes {outside}/k, outside the workspace",
    ),
    (
        "timeout 5 node --tls-keylog={outside}/k app.js",
        "ask",
        None,
        "writes {outside}/k, outside the workspace",
    ),
    (
        "node --inspect=0.0.0.0:9229 app.js",
        "ask",
        None,
        "node --inspect=0.0.0.0:9229 opens a debugger to the network: whoever reaches it runs code",
    ),
    (
        "node --inspect-brk=0.0.0.0 app.js",
        "ask",
        None,
        "node --inspect-brk=0.0.0.0 opens a debugger to the network: whoever reaches it runs code",
    ),
    (
        "node --inspect-wait=192.168.1.5:9229 app.js",
        "ask",
        None,
        f"node --inspect-wait=192.168.1.5:9229 {DEBUGGER}",
    ),
    (
        "node --inspect-brk=0:9229 app.js",
        "ask",
        None,
        "node --inspect-brk=0:9229 opens a debugger to the network: whoever reaches it runs code",
    ),
    (
        "node --inspect-port=0.0.0.0:9229 app.js",
        "ask",
        None,
        f"node --inspect-port=0.0.0.0:9229 {DEBUGGER}",
    ),
    (
        "node --inspect-port 0.0.0.0:9229 app.js",
        "ask",
        None,
        f"node --inspect-port=0.0.0.0:9229 {DEBUGGER}",
    ),
    (
        "node --debug-port=evil.example:9229 app.js",
        "ask",
        None,
        f"node --debug-port=evil.example:9229 {DEBUGGER}",
    ),
    (
        "node -r ./app.js --inspect=0.0.0.0 app.js",
        "ask",
        None,
        "node --inspect=0.0.0.0 opens a debugger to the network: whoever reaches it runs code",
    ),
    (
        "node --experimental-network-imports app.js",
        "ask",
        None,
        "node --experimental-network-imports imports code over the network",
    ),
    (
        "node --experimental-sea-config sea.json",
        "ask",
        None,
        "node --experimental-sea-config writes the blob its configuration names",
    ),
    (
        "node --perf-basic-prof app.js",
        "ask",
        None,
        "node option --perf-basic-prof is not one tether knows",
    ),
    (
        "node --allow-natives-syntax app.js",
        "ask",
        None,
        "node option --allow-natives-syntax is not one tether knows",
    ),
    ("node -x app.js", "ask", None, "node option -x is not one tether knows"),
    (
        "node --stack-trace-limit=50 --frob=1 app.js",
        "ask",
        None,
        "node option --frob=1 is not one tether knows",
    ),
    (
        "npm test --node-options='--redirect-warnings={outside}/w'",
        "ask",
        None,
        "writes {outside}/w, outside the workspace",
    ),
    (
        "npm run build --node-options=--inspect=0.0.0.0",
        "ask",
        None,
        "node --inspect=0.0.0.0 opens a debugger to the network: whoever reaches it runs code",
    ),
]

ALLOWED = [
    "node app.js",
    "node --inspect app.js",
    "node --inspect=127.0.0.1:9229 app.js",
    "node --inspect-brk=localhost:9229 app.js",
    "node --inspect=9230 app.js",
    "node --max-old-space-size=4096 app.js",
    "node --max_old_space_size=4096 app.js",
    "node --no-warnings --enable-source-maps app.js",
    "node --redirect-warnings=warnings.txt app.js",
    "node --cpu-prof --cpu-prof-dir=prof app.js",
    "node --diagnostic-dir=diag --report-on-signal app.js",
    "node --prof app.js",
    "node --test --test-reporter-destination=stdout",
    "node --stack-size=2000 --expose-gc app.js",
    "node app.js --inspect=0.0.0.0 --redirect-warnings=/etc/x",
]
"""Options that write in the workspace, a debugger on loopback, words that are the script's."""


def test_node_options_meet_the_deny_rules(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    wanted = expected(DENIED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


def test_node_options_that_write_listen_or_are_unknown_are_asked(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ALLOW}})
    wanted = expected(ASKED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


@pytest.mark.parametrize("command", ALLOWED)
def test_node_options_known_harmless_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(node *)"], "deny": DENY}})
    assert bash(command, ctx) == Decision("allow", "Bash(node *)", "allowed by Bash(node *)")
