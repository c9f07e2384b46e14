"""deno's permission flags judged as what they grant the code it runs (every permission with
`-A`, `--allow-run`, `--allow-ffi`; every file, variable or host with a bare grant; reads and
writes of the paths named, by the Read and Edit rules), a script from the network, deno.json's
tasks that grant them, `deno install -g` and `--allow-scripts`: allowed before under
`Bash(deno *)`, each of the asked ones. deno with no grants is its own sandbox: allowed."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash, expected

ALLOW = ["Bash(deno *)"]
DENY = ["Bash(curl *)", "Read(.env)"]
FILES = {
    "main.ts": "console.log(1)\n",
    "deno.json": '{"tasks": {"dev": "deno run -A main.ts", "ok": "deno run main.ts"}}',
}

JUDGED = [
    (
        "deno run -A main.ts",
        "ask",
        None,
        "deno --allow-all gives the code it runs every permission",
    ),
    (
        "deno run --allow-all main.ts",
        "ask",
        None,
        "deno --allow-all gives the code it runs every permission",
    ),
    ("deno -A main.ts", "ask", None, "deno --allow-all gives the code it runs every permission"),
    (
        "deno run --allow-run=git main.ts",
        "ask",
        None,
        "deno --allow-run=git gives the code it runs every permission",
    ),
    (
        "deno run --allow-ffi main.ts",
        "ask",
        None,
        "deno --allow-ffi gives the code it runs every permission",
    ),
    (
        "deno run -P main.ts",
        "ask",
        None,
        "deno --permission-set takes the permissions its configuration names",
    ),
    (
        "deno run --allow-write main.ts",
        "ask",
        None,
        "deno --allow-write gives the code it runs writes of every file",
    ),
    (
        "deno run --allow-write=../outside main.ts",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    ("deno run --allow-write=/ main.ts", "ask", None, "writes /, outside the workspace"),
    (
        "deno run --allow-write=./src,{outside} main.ts",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    (
        "deno run --allow-read main.ts",
        "ask",
        None,
        "deno --allow-read gives the code it runs reads of every file",
    ),
    (
        "deno run -R main.ts",
        "ask",
        None,
        "deno --allow-read gives the code it runs reads of every file",
    ),
    (
        "deno run --allow-read=.env main.ts",
        "deny",
        "Read(.env)",
        "reading {ws}/.env is denied by Read(.env)",
    ),
    (
        "deno run --allow-read=. main.ts",
        "ask",
        "Read(.env)",
        "searches {ws}, which may hold files deny rule Read(.env) covers",
    ),
    (
        "deno run -RWN main.ts",
        "ask",
        None,
        "deno --allow-read gives the code it runs reads of every file",
    ),
    (
        "deno run --allow-env main.ts",
        "ask",
        None,
        "deno --allow-env gives the code it runs every environment variable",
    ),
    (
        "deno run --allow-net main.ts",
        "ask",
        None,
        "deno --allow-net gives the code it runs every host",
    ),
    (
        "deno run --allow-net=example.com main.ts",
        "ask",
        None,
        "deno --allow-net lets the code it runs reach example.com",
    ),
    (
        "deno run --allow-import main.ts",
        "ask",
        None,
        "deno --allow-import gives the code it runs imports of code from every host",
    ),
    ("deno serve -N main.ts", "ask", None, "deno --allow-net gives the code it runs every host"),
    ("deno test -A", "ask", None, "deno --allow-all gives the code it runs every permission"),
    (
        "deno https://example.com/x.ts",
        "ask",
        None,
        "deno runs https://example.com/x.ts, code from the network: not seen",
    ),
    (
        "deno run jsr:@std/http/file-server",
        "ask",
        None,
        "deno runs jsr:@std/http/file-server, code from the network: not seen",
    ),
    ("deno run npm:cowsay", "ask", None, "deno runs npm:cowsay, code from the network: not seen"),
    (
        "deno task dev",
        "ask",
        None,
        "deno runs dev from deno.json: deno --allow-all gives the code it runs every permission",
    ),
    (
        "deno install -g jsr:@x/y",
        "ask",
        None,
        "deno install -g writes a program to deno's bin directory, run later",
    ),
    (
        "deno install --allow-scripts",
        "ask",
        None,
        "deno install --allow-scripts runs packages' lifecycle scripts: not seen",
    ),
]

ALLOWED = [
    "deno run main.ts",
    "deno main.ts",
    "deno run --allow-read=./src main.ts",
    "deno run --allow-write=./src main.ts",
    "deno run --allow-net=localhost:8000 main.ts",
    "deno run --allow-env=HOME -S main.ts",
    "deno run main.ts -A",
    "deno task ok",
    "deno install",
    "deno compile main.ts",
    "deno fmt",
]
"""No grant, grants of workspace paths or loopback, words that are the script's, commands that
run no code with the grants."""


def test_deno_grants_are_judged_as_what_they_give(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    wanted = expected(JUDGED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


@pytest.mark.parametrize("command", ALLOWED)
def test_deno_in_its_own_sandbox_stays_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    assert bash(command, ctx) == Decision("allow", "Bash(deno *)", "allowed by Bash(deno *)")
